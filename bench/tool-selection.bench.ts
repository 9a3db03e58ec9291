import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FunctionTool } from '../src/shared/tool-types';
import type { ChatMessage } from '../src/shared/chat-types';
import { ToolIndex, toolDocument, type ToolIndexOptions } from '../src/agent/selection/tool-index';
import { LEARNED_WEIGHT, ToolSelection } from '../src/agent/selection/tool-selection';
import { UsageEvidence } from '../src/agent/selection/usage-evidence';
import { lexicon, lexiconLoad } from '../src/agent/selection/lexicon';
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
  expand: false,
  nameCoverage: 0,
};

const read = <T>(file: string) => JSON.parse(readFileSync(join(DATA, file), 'utf8')) as T;

function load(): { tools: FunctionTool[]; questions: Question[] } {
  return { tools: read<FunctionTool[]>('apizoo-tools.json'), questions: read<Question[]>('apizoo-questions.json') };
}

/**
 * Chinese translations of every 6th English question, a few Chinese questions with an English term, and a
 * second translation pass over half A only (every 6th question from the 3rd), to tune on.
 */
export function chineseQuestions(): { chinese: Question[]; mixed: Question[]; tuning: Question[] } {
  return {
    chinese: read<Question[]>('apizoo-questions-zh.json'),
    mixed: read<Question[]>('apizoo-questions-zh-mixed.json'),
    tuning: read<Question[]>('apizoo-questions-zh-tuning.json'),
  };
}

function evaluate(
  tools: readonly FunctionTool[],
  questions: readonly Question[],
  options: ToolIndexOptions,
  learned?: UsageEvidence,
) {
  const builtAt = performance.now();
  const index = new ToolIndex(
    tools.map((tool) => toolDocument(tool, options.tokenize)),
    options,
  );
  const buildMs = performance.now() - builtAt;
  const rank = (question: string) =>
    index.rank(question, Math.max(...KS), learned && scaled(learned.scores(question), LEARNED_WEIGHT));
  for (const { question } of questions) rank(question);
  const times: number[] = [];
  const rankings = questions.map(({ question, tool }) => {
    const started = performance.now();
    const ranked = rank(question).map((entry) => entry.name);
    times.push(performance.now() - started);
    return { tool, ranked };
  });
  const result = recall(rankings);
  result['median ms per selection'] = Number(median(times).toFixed(3));
  result['p99 ms per selection'] = Number([...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)].toFixed(3));
  result['index build ms'] = Number(buildMs.toFixed(1));
  return result;
}

const scaled = (scores: Map<string, number>, weight: number) =>
  new Map([...scores].map(([name, score]) => [name, score * weight]));

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

/**
 * The three parts of issue 27, each off (WordNet and CC-CEDICT, with the abbreviations the tools define; sibling
 * families) and on.
 */
const PARTS: Record<string, ToolIndexOptions> = {
  'BM25F (no lexicon)': { expand: false },
  'BM25F + lexicon': {},
  'BM25F + lexicon, no abbreviations': { weights: { abbreviations: 0 } },
  'BM25F + siblings': { expand: false, siblings: true },
  'BM25F + lexicon + siblings': { siblings: true },
};

/**
 * Learning from use as a split: per tool, its questions alternate between a half the evidence learns from (as if
 * the model had called the tool for them) and a half it is tested on.
 */
function learningSplit(questions: readonly Question[]): { learn: Question[]; test: Question[] } {
  const seen = new Map<string, number>();
  const learn: Question[] = [];
  const test: Question[] = [];
  for (const question of questions) {
    const count = seen.get(question.tool) ?? 0;
    seen.set(question.tool, count + 1);
    (count % 2 === 0 ? learn : test).push(question);
  }
  return { learn, test };
}

function halfRows(
  small: readonly FunctionTool[],
  half: (name: 'A' | 'B', of?: readonly Question[]) => Question[],
): Record<string, Record<string, number>> {
  const { chinese, mixed, tuning } = chineseQuestions();
  const english = read<Question[]>('apizoo-questions.json');
  const originalsOf = (questions: readonly Question[]) =>
    questions.map((question) => english[question.source_index ?? -1]);
  const rows: Record<string, Record<string, number>> = {};
  for (const name of ['A', 'B'] as const) {
    const sets: Array<[string, Question[]]> = [
      ['English', half(name)],
      ['Chinese', half(name, chinese)],
      ['their English originals', originalsOf(half(name, chinese))],
      ['Chinese with an English term', half(name, mixed)],
    ];
    if (half(name, tuning).length > 0)
      sets.push(
        ['Chinese, tuning translation', half(name, tuning)],
        ['its English originals', originalsOf(half(name, tuning))],
      );
    for (const [part, options] of Object.entries(PARTS))
      for (const [language, questions] of sets) {
        if (language !== 'English' && options.siblings) continue;
        rows[`half ${name}, ${language} (${questions.length}), ${part}`] = evaluate(small, questions, options);
      }
    const { learn, test } = learningSplit(half(name));
    const evidence = new UsageEvidence();
    for (const { question, tool } of learn) evidence.record(question, tool);
    const label = `half ${name}, English, learning split (learn ${learn.length}, test ${test.length})`;
    rows[`${label}, lexicon, not learned`] = evaluate(small, test, {});
    rows[`${label}, lexicon + learned`] = evaluate(small, test, {}, evidence);
  }
  return rows;
}

/** What loading WordNet and CC-CEDICT cost this process (it happens on the first ranking with the lexicon). */
function lexiconCost(): Record<string, number> {
  const before = process.memoryUsage().rss;
  lexicon();
  const load = lexiconLoad();
  if (load?.problem !== undefined) console.warn(`lexicon not loaded: ${load.problem}`);
  return {
    'load ms': Number((load?.milliseconds ?? 0).toFixed(0)),
    'RSS added MB': Number(((process.memoryUsage().rss - before) / 1e6).toFixed(1)),
  };
}

export function benchToolSelection(): Promise<Record<string, Record<string, number>>> {
  const cost = lexiconCost();
  const { tools, questions, small, half } = apiZooPool();
  const label = (pool: number) => `${pool} tools, ${questions.length} questions`;
  return Promise.resolve({
    ['lexicon (WordNet 3.1 + CC-CEDICT), loaded on the first selection']: cost,
    [`BM25F (no lexicon) (${label(tools.length)})`]: evaluate(tools, questions, { expand: false }),
    [`BM25F + lexicon (${label(tools.length)})`]: evaluate(tools, questions, {}),
    [`plain BM25 (${label(tools.length)})`]: evaluate(tools, questions, BASELINE),
    [`BM25F (no lexicon) (${label(small.length)})`]: evaluate(small, questions, { expand: false }),
    [`BM25F + lexicon (${label(small.length)})`]: evaluate(small, questions, {}),
    [`plain BM25 (${label(small.length)})`]: evaluate(small, questions, BASELINE),
    ...halfRows(small, half),
    [`node selection of 10 per call (lexicon on), median ms`]: {
      [`${tools.length} tools`]: timePick(tools, questions),
      [`${small.length} tools`]: timePick(small, questions),
      [`${small.length} tools, Chinese questions`]: timePick(small, chineseQuestions().chinese),
    },
  });
}

if (require.main === module) {
  void benchToolSelection().then((results) => console.table(results));
}
