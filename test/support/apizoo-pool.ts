import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowApi } from './workflow-api';

export type PoolTool = { function: { name: string; description: string; parameters: Record<string, unknown> } };

/** 300 real API descriptions from the tool-selection benchmark (Gorilla API Zoo, Apache-2.0). */
export const APIZOO_POOL = (
  JSON.parse(readFileSync(join(__dirname, '../../bench/tool-selection/apizoo-tools.json'), 'utf8')) as PoolTool[]
).slice(0, 300);

/** Stores each tool as a read-only code tool of category `apizoo` whose code `codeOf` gives (descriptions cut to 2000). */
export async function createPoolTools(
  api: WorkflowApi,
  tools: readonly PoolTool[],
  codeOf: (name: string) => string,
): Promise<void> {
  for (const { function: fn } of tools) {
    const description = fn.description.slice(0, 2000);
    await api.createTool({
      name: fn.name,
      description,
      category: 'apizoo',
      effect: 'read_only',
      function_schema: { name: fn.name, description, parameters: fn.parameters },
      implementation_type: 'code',
      implementation_config: { language: 'javascript', code: codeOf(fn.name) },
    });
  }
}
