import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import { WORKFLOW_DEFINITION_SCHEMA } from '../src/workflow/definition.schema';

/** The committed copy of GET /api/v1/workflows/schema, which definitions kept in git name as "$schema". */
export const WORKFLOW_SCHEMA_FILE = join(__dirname, '..', 'schemas', 'workflow.schema.json');

async function main(): Promise<void> {
  const text = await format(JSON.stringify(WORKFLOW_DEFINITION_SCHEMA), { parser: 'json', printWidth: 120 });
  writeFileSync(WORKFLOW_SCHEMA_FILE, text);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error).stack ?? error)}\n`);
  process.exit(1);
});
