import { defineStore } from 'pinia';
import { refusalText } from '../api/http';
import { runsApi, workflowsApi } from '../api/resources';
import type { RunResponse } from '../api/types';

/** What starting or cancelling a run answered: the run, or the refusal in words with its status (`429 Quota …`). */
export type RunOutcome = { ok: true; run: RunResponse } | { ok: false; error: string };

const outcomeOf = async (request: Promise<RunResponse>): Promise<RunOutcome> => {
  try {
    return { ok: true, run: await request };
  } catch (failure) {
    return { ok: false, error: refusalText(failure) };
  }
};

/**
 * Runs: starting one (of a stored workflow, or of a definition sent with it) and cancelling one, each answering
 * the run or the API's refusal with its status, so every page says a quota's 429 or a disabled workflow's 409 alike.
 */
export const useRunsStore = defineStore('runs', () => {
  const start = (workflowId: string, inputs: Record<string, unknown>) =>
    outcomeOf(workflowsApi.run(workflowId, inputs));
  const startInline = (definition: unknown, inputs: Record<string, unknown>) =>
    outcomeOf(workflowsApi.runInline(definition, inputs));
  const cancel = (runId: string) => outcomeOf(runsApi.cancel(runId));

  return { start, startInline, cancel };
});
