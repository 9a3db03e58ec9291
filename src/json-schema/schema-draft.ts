import type { JsonSchema } from '../shared/tool-types';

export type SchemaDraft = 'draft-07' | '2020-12';

export type SchemaDraftResult = { ok: true; draft: SchemaDraft } | { ok: false; message: string };

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/** Picks the draft from `$schema`; no `$schema` means 2020-12. */
export function detectSchemaDraft(schema: JsonSchema): SchemaDraftResult {
  const declared = schema.$schema;
  if (declared === undefined) return { ok: true, draft: '2020-12' };
  if (typeof declared === 'string' && DRAFT_2020.test(declared)) return { ok: true, draft: '2020-12' };
  if (typeof declared === 'string' && DRAFT_07.test(declared)) return { ok: true, draft: 'draft-07' };
  return {
    ok: false,
    message: `unsupported $schema ${JSON.stringify(declared)}: use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#`,
  };
}
