import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FunctionTool } from '../src/shared/tool-types';
import type { ChatMessage } from '../src/shared/chat-types';
import { ToolIndex, toolDocument, type ToolIndexOptions } from '../src/agent/selection/tool-index';
import { ToolSelection } from '../src/agent/selection/tool-selection';
import { median } from './median';

export interface Question {
  question: string;
  tool: string;
  /** Of a translated question: the position of its English original in apizoo-questions.json. */
  source_index?: number;
}

const DATA = join(__dirname, 'tool-selection');
export const KS = [5, 10, 20];
const SELECTION_POOL = 500;

/** Plain BM25 over names and descriptions: one field, words as written, no stemming or synonyms. */
const BASELINE: ToolIndexOptions = {
  weights: { name: 1, description: 1, params: 0, paramDescriptions: 0 },
  tokenize: { splitIdentifiers: false, stem: false },
  synonymWeight: 0,
};

const read = <T>(file: string) => JSON.parse(readFileSync(join(DATA, file), 'utf8')) as T;

function load(): { tools: FunctionTool[]; questions: Question[] } {
  return { tools: read<FunctionTool[]>('apizoo-tools.json'), questions: read<Question[]>('apizoo-questions.json') };
}

/** Chinese translations of every 6th English question, and a few Chinese questions with an English term. */
export function chineseQuestions(): { chinese: Question[]; mixed: Question[] } {
  return {
    chinese: read<Question[]>('apizoo-questions-zh.json'),
    mixed: read<Question[]>('apizoo-questions-zh-mixed.json'),
  };
}

function evaluate(tools: readonly FunctionTool[], questions: readonly Question[], options: ToolIndexOptions) {
  const builtAt = performance.now();
  const index = new ToolIndex(
    tools.map((tool) => toolDocument(tool, options.tokenize)),
    options,
  );
  const buildMs = performance.now() - builtAt;
  for (const { question } of questions) index.rank(question, Math.max(...KS));
  const times: number[] = [];
  const rankings = questions.map(({ question, tool }) => {
    const started = performance.now();
    const ranked = index.rank(question, Math.max(...KS)).map((entry) => entry.name);
    times.push(performance.now() - started);
    return { tool, ranked };
  });
  const result = recall(rankings);
  result['median ms per selection'] = Number(median(times).toFixed(3));
  result['p99 ms per selection'] = Number([...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)].toFixed(3));
  result['index build ms'] = Number(buildMs.toFixed(1));
  return result;
}

/** What the node does before each model call: build the query from the conversation, rank, pick k = 10. */
function timePick(tools: readonly FunctionTool[], questions: readonly Question[]): number {
  const selection = new ToolSelection(
    10,
    [],
    tools,
    tools.map((tool) => toolDocument(tool)),
  );
  const names = tools.map((tool) => tool.function.name);
  const conversation = (question: string): ChatMessage[] => [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: question },
  ];
  for (const { question } of questions) selection.pick(conversation(question), names);
  const times = questions.map(({ question }) => {
    const messages = conversation(question);
    const started = performance.now();
    selection.pick(messages, names);
    return performance.now() - started;
  });
  return Number(median(times).toFixed(3));
}

/**
 * Tool selection on Gorilla's API Zoo (Apache-2.0; see bench/tool-selection/README.md): recall@k of the
 * node's ranking and of plain BM25 on the same questions, over the whole pool and over a pool of 500 that
 * still holds every asked-about tool, and the time one selection takes.
 */
/**
 * The API Zoo pool: every tool, a pool of 500 that still holds every asked-about tool, the questions, and two
 * halves by tool (every other asked-about tool in name order): a change of the ranking is tried on half A and
 * must hold on half B, whose tools and questions it was not looked at with.
 */
export function apiZooPool() {
  const { tools, questions } = load();
  const asked = new Set(questions.map((question) => question.tool));
  const halfOf = new Map([...asked].sort().map((name, position) => [name, position % 2 === 0 ? 'A' : 'B']));
  const half = (name: 'A' | 'B', of: readonly Question[] = questions) =>
    of.filter((question) => halfOf.get(question.tool) === name);
  const small = [...tools.filter((tool) => asked.has(tool.function.name))];
  for (const tool of tools) if (small.length < SELECTION_POOL && !asked.has(tool.function.name)) small.push(tool);
  return { tools, questions, small, half };
}

/** recall@k of each k in KS: how often the right tool is among the first k names. */
export function recall(rankings: ReadonlyArray<{ tool: string; ranked: readonly string[] }>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const k of KS) {
    const hits = rankings.filter(({ tool, ranked }) => ranked.slice(0, k).includes(tool)).length;
    result[`recall@${k}`] = Number((hits / rankings.length).toFixed(3));
  }
  return result;
}

function chineseRows(
  small: readonly FunctionTool[],
  half: (name: 'A' | 'B', of: readonly Question[]) => Question[],
): Record<string, Record<string, number>> {
  const { chinese, mixed } = chineseQuestions();
  const english = read<Question[]>('apizoo-questions.json');
  const originals = chinese.map((question) => english[question.source_index ?? -1]);
  const pool = `${small.length} tools`;
  return {
    [`English originals of the Chinese, BM25F, ${pool} (${originals.length} questions)`]: evaluate(
      small,
      originals,
      {},
    ),
    [`Chinese, BM25F, ${pool}, all (${chinese.length} questions)`]: evaluate(small, chinese, {}),
    [`Chinese, BM25F, ${pool}, half A (${half('A', chinese).length} questions)`]: evaluate(
      small,
      half('A', chinese),
      {},
    ),
    [`Chinese, BM25F, ${pool}, half B (${half('B', chinese).length} questions)`]: evaluate(
      small,
      half('B', chinese),
      {},
    ),
    [`Chinese with an English term, BM25F, ${pool} (${mixed.length} questions)`]: evaluate(small, mixed, {}),
    [`node selection of 10 per call, Chinese questions, median ms`]: { [pool]: timePick(small, chinese) },
  };
}

export function benchToolSelection(): Promise<Record<string, Record<string, number>>> {
  const { tools, questions, small, half } = apiZooPool();
  const label = (pool: number) => `${pool} tools, ${questions.length} questions`;
  return Promise.resolve({
    [`BM25F + stems + synonyms (${label(tools.length)})`]: evaluate(tools, questions, {}),
    [`plain BM25 (${label(tools.length)})`]: evaluate(tools, questions, BASELINE),
    [`BM25F + stems + synonyms (${label(small.length)})`]: evaluate(small, questions, {}),
    [`plain BM25 (${label(small.length)})`]: evaluate(small, questions, BASELINE),
    [`BM25F, ${small.length} tools, half A (${half('A').length} questions)`]: evaluate(small, half('A'), {}),
    [`BM25F, ${small.length} tools, half B (${half('B').length} questions)`]: evaluate(small, half('B'), {}),
    ...chineseRows(small, half),
    [`node selection of 10 per call, median ms`]: {
      [`${tools.length} tools`]: timePick(tools, questions),
      [`${small.length} tools`]: timePick(small, questions),
    },
  });
}

if (require.main === module) {
  void benchToolSelection().then((results) => console.table(results));
}
