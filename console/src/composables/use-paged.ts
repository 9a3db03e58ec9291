import { reactive, ref, watch, type Ref } from 'vue';
import { errorText } from '../api/http';
import type { Page } from '../api/types';

/** A paged list bound to filters: any filter change goes back to page 1 and reloads. */
export function usePaged<T, F extends Record<string, unknown>>(
  load: (query: F & { page: number; page_size: number }) => Promise<Page<T>>,
  initialFilters: F,
  pageSize = 20,
) {
  const filters = reactive({ ...initialFilters }) as F;
  const items = ref<T[]>([]) as Ref<T[]>;
  const total = ref(0);
  const page = ref(1);
  const loading = ref(false);
  const error = ref('');
  let generation = 0;

  const reload = async () => {
    const mine = ++generation;
    loading.value = true;
    error.value = '';
    try {
      const result = await load({ ...(filters as F), page: page.value, page_size: pageSize });
      if (mine !== generation) return;
      items.value = result.items;
      total.value = result.total;
    } catch (failure) {
      if (mine === generation) error.value = errorText(failure);
    } finally {
      if (mine === generation) loading.value = false;
    }
  };

  watch(
    () => ({ ...(filters as F) }),
    () => {
      page.value = 1;
      void reload();
    },
    { deep: true },
  );
  watch(page, () => void reload());
  void reload();
  return { filters, items, total, page, pageSize, loading, error, reload };
}
