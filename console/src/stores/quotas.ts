import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { ApiError, errorText } from '../api/http';
import { quotasApi } from '../api/resources';
import type { FieldProblem, QuotaResponse } from '../api/types';
import { problemsAtFields, quotaFormText, readQuotaForm, type QuotaFormText } from '../lib/quota-form';

/**
 * Quotas: the caller's own (with what each window has used) and, for admins, the form that edits one user's. The
 * form keeps exactly what was typed; a value the API refuses is shown at its field and nothing else is sent.
 */
export const useQuotasStore = defineStore('quotas', () => {
  const mine = ref<QuotaResponse | null>(null);
  const mineError = ref('');

  const editing = ref<QuotaResponse | null>(null);
  const text = ref<QuotaFormText>(quotaFormText({}));
  const problems = ref<FieldProblem[]>([]);
  const error = ref('');
  const busy = ref(false);
  const placed = computed(() => problemsAtFields(problems.value));

  async function loadMine(): Promise<void> {
    mineError.value = '';
    try {
      mine.value = await quotasApi.mine();
    } catch (failure) {
      mineError.value = errorText(failure);
    }
  }

  /** Opens a user's quotas in the form (admins); a user with none opens an empty form. */
  async function edit(userId: string): Promise<void> {
    problems.value = [];
    error.value = '';
    busy.value = true;
    try {
      editing.value = await quotasApi.get(userId.trim());
      text.value = quotaFormText(editing.value.limits);
    } catch (failure) {
      error.value = errorText(failure);
    } finally {
      busy.value = false;
    }
  }

  /** A field changed: its problem goes, the others stay until the next save. */
  function setField(field: keyof QuotaFormText, value: string): void {
    text.value = { ...text.value, [field]: value };
    problems.value = problems.value.filter((problem) => !problem.field.startsWith(field.split('.')[0]));
  }

  /** Sends the form as typed; true when the API stored it. */
  async function save(): Promise<boolean> {
    if (!editing.value) return false;
    problems.value = [];
    error.value = '';
    const reading = readQuotaForm(text.value);
    if (!reading.ok) {
      problems.value = reading.problems;
      return false;
    }
    busy.value = true;
    try {
      editing.value = await quotasApi.put(editing.value.user_id, reading.limits);
      if (mine.value?.user_id === editing.value.user_id) mine.value = editing.value;
      return true;
    } catch (failure) {
      error.value = errorText(failure);
      if (failure instanceof ApiError) problems.value = failure.errors;
      return false;
    } finally {
      busy.value = false;
    }
  }

  return { mine, mineError, editing, text, problems, placed, error, busy, loadMine, edit, setField, save };
});
