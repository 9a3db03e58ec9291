import type { ValidateFunction } from 'ajv';
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import { ApiError, errorText } from '../api/http';
import { workflowsApi } from '../api/resources';
import type { WorkflowResponse } from '../api/types';
import { compileDefinitionSchema } from '../lib/workflow-check';

/** What turning a workflow on or off answered: the workflow as stored now, or the API's refusal in words. */
export type EnabledOutcome = { ok: true; workflow: WorkflowResponse } | { ok: false; error: string };

/**
 * Workflows: the definition schema (GET /workflows/schema, read and compiled once for the editor's live check) and
 * the changes a workflow's page makes besides saving its definition.
 */
export const useWorkflowsStore = defineStore('workflows', () => {
  const schema = ref<Record<string, unknown> | null>(null);
  const validate = shallowRef<ValidateFunction | null>(null);
  let schemaRead: Promise<void> | null = null;

  /** Reads and compiles the definition schema, once; a failure is thrown and tried again on the next call. */
  function loadSchema(): Promise<void> {
    schemaRead ??= workflowsApi.schema().then(
      (read) => {
        schema.value = read;
        validate.value = compileDefinitionSchema(read);
      },
      (failure: unknown) => {
        schemaRead = null;
        throw failure;
      },
    );
    return schemaRead;
  }

  /** Saves only `enabled`, on the workflow as stored (unsaved edits stay in the editor); a refusal names its fields. */
  async function setEnabled(workflow: WorkflowResponse, enabled: boolean): Promise<EnabledOutcome> {
    try {
      return { ok: true, workflow: await workflowsApi.setEnabled(workflow, enabled) };
    } catch (failure) {
      let error = errorText(failure);
      if (failure instanceof ApiError && failure.errors.length > 0)
        error += `: ${failure.errors.map((problem) => `${problem.field} ${problem.message}`).join('; ')}`;
      return { ok: false, error };
    }
  }

  return { schema, validate, loadSchema, setEnabled };
});
