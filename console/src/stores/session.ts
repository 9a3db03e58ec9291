import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { api } from '../api/http';

const KEY_STORAGE = 'toolflow.apiKey';

/** sessionStorage when there is one (the browser); unit tests run without it. */
const storage = (): Storage | null => (typeof sessionStorage === 'undefined' ? null : sessionStorage);

/** Who is signed in: the API key, kept for the browser tab's session (a reload keeps it, a new tab does not). */
export const useSessionStore = defineStore('session', () => {
  const key = ref(storage()?.getItem(KEY_STORAGE) ?? '');
  const signedIn = computed(() => key.value !== '');

  /** Signs in with a key the API accepts; a key it refuses throws its ApiError and changes nothing. */
  async function signIn(candidate: string): Promise<void> {
    const trimmed = candidate.trim();
    await api('GET', '/tools?page_size=1', undefined, trimmed);
    key.value = trimmed;
    storage()?.setItem(KEY_STORAGE, trimmed);
  }

  function signOut(): void {
    key.value = '';
    storage()?.removeItem(KEY_STORAGE);
  }

  return { key, signedIn, signIn, signOut };
});
