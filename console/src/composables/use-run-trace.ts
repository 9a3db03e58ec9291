import { fetchEventSource } from '@microsoft/fetch-event-source';
import { onBeforeUnmount, reactive, ref, watch, type Ref } from 'vue';
import { API_BASE, authHeaders, errorText } from '../api/http';
import { runsApi } from '../api/resources';
import type { RunResponse } from '../api/types';
import { applyEvent } from '../lib/run-trace';
import { toTraceEvent } from '../lib/run-events';
import { emptyTrace, type TraceState } from '../lib/trace-state';

const FINISHED = ['succeeded', 'failed', 'cancelled'];

class StreamEnded extends Error {}

/**
 * A run as it happens: its record from GET /runs/:id and its event stream (past events replayed, then live
 * ones) over SSE with the Authorization header. After run.finished the record is read again, complete.
 */
export function useRunTrace(runId: Ref<string | null>) {
  const trace = reactive<TraceState>(emptyTrace());
  const run = ref<RunResponse | null>(null);
  const error = ref('');
  const live = ref(false);
  let controller: AbortController | null = null;

  const refresh = async (id: string) => {
    run.value = await runsApi.get(id);
  };

  const open = async (id: string) => {
    controller?.abort();
    Object.assign(trace, emptyTrace());
    run.value = null;
    error.value = '';
    const abort = new AbortController();
    controller = abort;
    try {
      await refresh(id);
      live.value = true;
      await fetchEventSource(`${API_BASE}/runs/${id}/events`, {
        headers: authHeaders(),
        signal: abort.signal,
        openWhenHidden: true,
        onmessage(message) {
          const event = toTraceEvent(message.event, message.data);
          if (!event) return;
          applyEvent(trace, event);
          // The record holds what waits for a decision (pending_approvals): read it again when that changes.
          if (message.event.startsWith('approval.')) void refresh(id).catch(() => undefined);
          if (message.event === 'run.finished') throw new StreamEnded();
        },
        onclose() {
          throw new StreamEnded();
        },
        onerror(failure: unknown) {
          throw failure instanceof Error ? failure : new Error(String(failure));
        },
      });
    } catch (failure) {
      if (!(failure instanceof StreamEnded) && !abort.signal.aborted) error.value = errorText(failure);
    } finally {
      if (controller === abort) live.value = false;
    }
    if (!abort.signal.aborted) await refresh(id).catch((failure: unknown) => (error.value = errorText(failure)));
  };

  watch(
    runId,
    (id) => {
      if (id) void open(id);
    },
    { immediate: true },
  );
  onBeforeUnmount(() => controller?.abort());

  const finished = () => FINISHED.includes(run.value?.status ?? '') || FINISHED.includes(trace.status);
  return { trace, run, error, live, finished, refresh: () => (runId.value ? refresh(runId.value) : Promise.resolve()) };
}
