import { defineStore } from 'pinia';
import { reactive, ref } from 'vue';
import { sessionApi, toolsApi } from '../api/resources';
import type { ImplementationTypeResponse, Page, ToolResponse } from '../api/types';

type ToolQuery = Parameters<typeof toolsApi.list>[0];

/** How many pages of API keys an admin's owner column reads at most (100 keys a page). */
const MAX_KEY_PAGES = 10;

/**
 * Tools: the implementation types this service has (read once), the last call's status of each listed tool, and
 * for admins the names of the API keys each owner (user id) holds.
 */
export const useToolsStore = defineStore('tools', () => {
  const implementationTypes = ref<ImplementationTypeResponse[]>([]);
  const lastStatus = reactive<Record<string, string>>({});
  const keyNames = ref<Record<string, string[]>>({});
  let typesRead: Promise<ImplementationTypeResponse[]> | null = null;

  /** The implementation types, from the API (new ones appear without a console change); read once. */
  function loadImplementationTypes(): Promise<ImplementationTypeResponse[]> {
    typesRead ??= toolsApi.implementationTypes().then(
      (types) => (implementationTypes.value = types),
      (failure: unknown) => {
        typesRead = null;
        throw failure;
      },
    );
    return typesRead;
  }

  /** A page of tools, with each one's last call status (the list has no such column: one small log read each). */
  async function list(query: ToolQuery): Promise<Page<ToolResponse>> {
    const page = await toolsApi.list(query);
    await Promise.all(
      page.items.map(async (tool) => {
        const logs = await toolsApi.logs(tool.id, { page_size: 1 }).catch(() => null);
        lastStatus[tool.id] = logs?.items[0]?.status ?? '';
      }),
    );
    return page;
  }

  /** Reads the API keys (admins only) so an owner shows as its keys' names, not as a user id. */
  async function loadOwners(): Promise<void> {
    const names: Record<string, string[]> = {};
    for (let page = 1; page <= MAX_KEY_PAGES; page++) {
      const keys = await sessionApi.apiKeys({ page, page_size: 100, sort: 'created_at' });
      for (const key of keys.items) (names[key.user_id] ??= []).push(key.name);
      if (page * keys.page_size >= keys.total) break;
    }
    keyNames.value = names;
  }

  return { implementationTypes, lastStatus, keyNames, loadImplementationTypes, list, loadOwners };
});
