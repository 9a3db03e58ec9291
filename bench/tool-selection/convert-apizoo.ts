import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonrepair } from 'jsonrepair';

/**
 * Turns Gorilla's API Zoo (github.com/ShishirPatil/gorilla, data/apizoo, Apache-2.0; not the Berkeley Function
 * Calling Leaderboard) into the tool pool and questions of the tool-selection benchmark:
 *
 *   node -r @swc-node/register bench/tool-selection/convert-apizoo.ts <apizoo folder>
 *
 * Every entry becomes an OpenAI function tool (name from its `api_call`, description from `functionality` and
 * `meta_data.description`, parameters from `api_arguments`). Its contributor-written `questions` ("a real-life
 * scenario that uses this API … do not include the API name") are the queries, except questions asked of more
 * than one API and generic ones about the endpoint itself ("Is authentication required?"), which name no task.
 * The pool holds every API with a question plus APIs of other vendors (Zoom, Datadog, Google, YouTube …) as
 * distractors, up to POOL_SIZE tools. Deterministic: same input, same files.
 */

const POOL_SIZE = 1000;
const GENERIC = new Set(
  (
    'endpoint api apis request requests response responses body parameter parameters param header headers ' +
    'authentication authenticate required require status code codes format return returns information use used ' +
    'method methods call calls support supported pagination possible way http error errors result results field ' +
    'fields example version what how can is are does do the a an of to in for this that with it be i my there which ' +
    'when should any if or and on by from as into provide provided type types data value values specify specified ' +
    'need needed make made get'
  ).split(' '),
);

interface ZooEntry {
  api_name?: string;
  api_call?: string;
  api_arguments?: Record<string, unknown> | string;
  functionality?: string;
  meta_data?: { description?: string };
  questions?: unknown;
}

interface Tool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

const folder = process.argv[2];
const files = readdirSync(folder)
  .filter((file) => /\.json$/i.test(file))
  .sort();
const used = new Set<string>();
const withQuestions: Array<{ tool: Tool; questions: string[]; source: string }> = [];
const others: Array<{ tool: Tool; source: string }> = [];
const askedBy = new Map<string, number>();

for (const file of files) {
  const text = readFileSync(join(folder, file), 'utf8');
  let entries: unknown;
  try {
    entries = JSON.parse(jsonrepair(text));
  } catch {
    continue;
  }
  for (const entry of (Array.isArray(entries) ? entries : [entries]) as ZooEntry[]) {
    const tool = toTool(entry);
    if (tool === null) continue;
    const questions = Array.isArray(entry.questions)
      ? entry.questions.filter((question): question is string => typeof question === 'string' && question.trim() !== '')
      : [];
    for (const question of new Set(questions.map(normalise))) askedBy.set(question, (askedBy.get(question) ?? 0) + 1);
    const source = file.replace(/\.json$/i, '');
    if (questions.length > 0) withQuestions.push({ tool, questions, source });
    else others.push({ tool, source });
  }
}

const queries: Array<{ question: string; tool: string }> = [];
for (const { tool, questions } of withQuestions) {
  for (const question of questions) {
    if (askedBy.get(normalise(question)) !== 1 || isGeneric(question)) continue;
    queries.push({ question: question.trim(), tool: tool.function.name });
  }
}
// Distractors spread over every vendor: round robin over the sources.
const bySource = new Map<string, Tool[]>();
for (const { tool, source } of others) bySource.set(source, [...(bySource.get(source) ?? []), tool]);
const distractors: Tool[] = [];
const wanted = POOL_SIZE - withQuestions.length;
for (let round = 0; distractors.length < wanted; round++) {
  let added = false;
  for (const tools of bySource.values()) {
    if (round < tools.length && distractors.length < wanted) {
      distractors.push(tools[round]);
      added = true;
    }
  }
  if (!added) break;
}
const pool = [...withQuestions.map(({ tool }) => tool), ...distractors];
writeFileSync(join(__dirname, 'apizoo-tools.json'), `${JSON.stringify(pool, null, 1)}\n`);
writeFileSync(join(__dirname, 'apizoo-questions.json'), `${JSON.stringify(queries, null, 1)}\n`);
console.log(`${pool.length} tools (${withQuestions.length} asked about), ${queries.length} questions`);

function toTool(entry: ZooEntry): Tool | null {
  if (typeof entry.api_name !== 'string') return null;
  const calls = [...(entry.api_call ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)].map((match) => match[1]);
  const named = calls.filter((call) => call.includes('_') && call.length > 6).sort((a, b) => b.length - a.length)[0];
  const base = snake(named ?? entry.api_name.replace(/\bAPI\b/g, '')) || 'api';
  let name = base.slice(0, 60);
  for (let suffix = 2; used.has(name); suffix++) name = `${base.slice(0, 56)}_${suffix}`;
  used.add(name);
  const description = [entry.functionality, entry.meta_data?.description]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .join(' ');
  return {
    type: 'function',
    function: { name, description: description || entry.api_name, parameters: toParameters(entry.api_arguments) },
  };
}

function toParameters(args: ZooEntry['api_arguments']): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    for (const [key, value] of Object.entries(args)) {
      const name = snake(key) || key;
      const description =
        typeof value === 'string'
          ? value
          : typeof value === 'object' &&
              value !== null &&
              typeof (value as { description?: unknown }).description === 'string'
            ? (value as { description: string }).description
            : undefined;
      properties[name] = { type: 'string', ...(description ? { description: description.trim() } : {}) };
    }
  }
  return { type: 'object', properties };
}

function snake(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function normalise(question: string): string {
  return question.trim().toLowerCase().replace(/\s+/g, ' ');
}

function isGeneric(question: string): boolean {
  const words = question.toLowerCase().match(/[a-z]+/g) ?? [];
  return words.filter((word) => !GENERIC.has(word)).length < 2;
}
