import { defineStore } from 'pinia';
import { reactive, ref } from 'vue';
import { ApiError, errorText } from '../api/http';
import { usageApi } from '../api/resources';
import type { FieldProblem, UsageResponse } from '../api/types';
import type { UsageMetric } from '../lib/usage-chart';

export type UsageGrouping = UsageResponse['group_by'];

/**
 * Usage (GET /usage): runs, tokens and cost by day, workflow or model over a time range, for the caller or (admins)
 * any user. The range's text goes to the API as typed; the API names a field it cannot read.
 */
export const useUsageStore = defineStore('usage', () => {
  const query = reactive({ from: '', to: '', group_by: 'day' as UsageGrouping, user_id: '' });
  const metric = ref<UsageMetric>('total_tokens');
  const usage = ref<UsageResponse | null>(null);
  const error = ref('');
  const problems = ref<FieldProblem[]>([]);
  const loading = ref(false);
  let generation = 0;

  async function load(): Promise<void> {
    const mine = ++generation;
    loading.value = true;
    error.value = '';
    problems.value = [];
    try {
      const answer = await usageApi.get({ ...query, from: query.from.trim(), to: query.to.trim() });
      if (mine === generation) usage.value = answer;
    } catch (failure) {
      if (mine !== generation) return;
      error.value = errorText(failure);
      if (failure instanceof ApiError) problems.value = failure.errors;
    } finally {
      if (mine === generation) loading.value = false;
    }
  }

  return { query, metric, usage, error, problems, loading, load };
});
