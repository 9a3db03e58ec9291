import { reactive, ref, watch, type Ref } from 'vue';
import { useRoute, useRouter, type LocationQuery, type LocationQueryRaw } from 'vue-router';
import { errorText } from '../api/http';
import type { Page } from '../api/types';

/** Filters of a list: text fields ('' when empty) and choices (null when none). */
export type Filters = Record<string, string | null>;

export interface PagedOptions {
  pageSize?: number;
  /** Keep the filters and the page in the URL's query string, so reload, deep links and the back button keep them. */
  syncQuery?: boolean;
}

export interface PagedList<T, F extends Filters = Filters> {
  filters: F;
  items: Ref<T[]>;
  total: Ref<number>;
  page: Ref<number>;
  pageSize: number;
  loading: Ref<boolean>;
  error: Ref<string>;
  reload: () => Promise<void>;
  goTo: (page: number) => void;
}

const pageOf = (value: unknown) => {
  const page = typeof value === 'string' ? Number.parseInt(value, 10) : NaN;
  return Number.isSafeInteger(page) && page > 0 ? page : 1;
};

const sameQuery = (a: LocationQuery | LocationQueryRaw, b: LocationQuery | LocationQueryRaw) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => String(a[key] ?? '') === String(b[key] ?? ''));
};

/**
 * The one paged list of the console: any filter change goes back to page 1 and reloads (answers to older
 * requests are dropped); with `syncQuery` the filters and page live in the query string as well.
 */
export function usePaged<T, F extends Filters>(
  load: (query: F & { page: number; page_size: number }) => Promise<Page<T>>,
  initialFilters: F,
  { pageSize = 20, syncQuery = false }: PagedOptions = {},
): PagedList<T, F> {
  const route = syncQuery ? useRoute() : null;
  const router = syncQuery ? useRouter() : null;
  const path = route?.path;
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

  const queryOf = (): LocationQueryRaw => {
    const own = [...Object.keys(initialFilters), 'page'];
    const others = Object.entries(route?.query ?? {}).filter(([name]) => !own.includes(name));
    const set = Object.entries(filters as Filters).filter(([, value]) => value !== null && value !== '');
    return Object.fromEntries([...others, ...set, ...(page.value > 1 ? [['page', String(page.value)]] : [])]);
  };
  // Only while this list's page is the current one: a navigation away must not be rewritten.
  const onOwnPage = () => route !== null && route.path === path;

  let applying = false;
  const applyQuery = (query: LocationQuery) => {
    applying = true;
    for (const [name, initial] of Object.entries(initialFilters)) {
      const value = query[name];
      (filters as Filters)[name] = typeof value === 'string' ? value : initial;
    }
    page.value = pageOf(query.page);
    applying = false;
  };

  // Several changes in one tick (a filter and the page going back to 1) make one request and one URL update.
  let scheduled = false;
  const changed = () => {
    if (scheduled) return;
    scheduled = true;
    void Promise.resolve().then(() => {
      scheduled = false;
      if (onOwnPage() && !sameQuery(route?.query ?? {}, queryOf())) void router?.replace({ query: queryOf() });
      void reload();
    });
  };

  if (route) applyQuery(route.query);
  watch(
    () => JSON.stringify(filters),
    () => {
      if (!applying) page.value = 1;
      changed();
    },
    { flush: 'sync' },
  );
  watch(page, changed, { flush: 'sync' });
  if (route) {
    watch(
      () => route.query,
      (query) => {
        if (onOwnPage() && !sameQuery(query, queryOf())) applyQuery(query);
      },
    );
  }
  void reload();

  return { filters, items, total, page, pageSize, loading, error, reload, goTo: (next) => (page.value = next) };
}
