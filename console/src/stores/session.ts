import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { sessionApi } from '../api/resources';
import type { MeResponse } from '../api/types';

const KEY_STORAGE = 'toolflow.apiKey';

/** sessionStorage when there is one (the browser); unit tests run without it. */
const storage = (): Storage | null => (typeof sessionStorage === 'undefined' ? null : sessionStorage);

/**
 * Who is signed in: the API key, kept for the browser tab's session (a reload keeps it, a new tab does not), and
 * who the API says it is (GET /me: user id, role, key name).
 */
export const useSessionStore = defineStore('session', () => {
  const key = ref(storage()?.getItem(KEY_STORAGE) ?? '');
  const me = ref<MeResponse | null>(null);
  const signedIn = computed(() => key.value !== '');
  const isAdmin = computed(() => me.value?.role === 'admin');

  /** Signs in with a key the API accepts; a key it refuses throws its ApiError and changes nothing. */
  async function signIn(candidate: string): Promise<void> {
    const trimmed = candidate.trim();
    const who = await sessionApi.me(trimmed);
    key.value = trimmed;
    me.value = who;
    storage()?.setItem(KEY_STORAGE, trimmed);
  }

  /** Reads who the kept key is (after a reload); when that fails the key stays, and the pages show the API's error. */
  async function identify(): Promise<void> {
    if (!signedIn.value || me.value) return;
    const kept = key.value;
    const who = await sessionApi.me(kept).catch(() => null);
    if (key.value === kept) me.value = who;
  }

  function signOut(): void {
    key.value = '';
    me.value = null;
    storage()?.removeItem(KEY_STORAGE);
  }

  return { key, me, signedIn, isAdmin, signIn, identify, signOut };
});
