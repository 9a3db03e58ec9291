import { performance } from 'node:perf_hooks';
import type { ChatMessage } from '../src/shared/chat-types';
import { OpenAIEmbeddings } from '../src/llm/embeddings';
import { similarities, unitVector, type Fusion } from '../src/agent/selection/semantic-ranking';
import { toolDocument } from '../src/agent/selection/tool-index';
import { ToolSelection, type SemanticSearch } from '../src/agent/selection/tool-selection';
import { toolVectors, type ToolVectorStore } from '../src/agent/selection/tool-vectors';
import { LOCAL_EMBEDDING_MODEL, startLocalEmbeddingServer } from './embedding-server';
import { median } from './median';
import { apiZooPool, KS, recall, type Question } from './tool-selection.bench';

/** Questions per embeddings request when embedding the whole question set. */
const QUESTION_BATCH = 64;
/** Selections timed with their query embedded through the server (each one request). */
const TIMED_WITH_EMBEDDING = 50;
/** Tried on half A to choose DEFAULT_FUSION. */
const FUSIONS: Fusion[] = [
  ...[0.3, 0.4, 0.5, 0.6, 0.7, 0.8].map((lexicalWeight): Fusion => ({ kind: 'weighted', lexicalWeight })),
  ...[10, 60].map((k): Fusion => ({ kind: 'rrf', k })),
];

const memoryStore = (): ToolVectorStore => {
  const rows = new Map<string, Float32Array>();
  return {
    find: (_model, keys) =>
      Promise.resolve(new Map(keys.filter((key) => rows.has(key)).map((key) => [key, rows.get(key)!]))),
    save: (_model, vectors) => {
      for (const [key, vector] of vectors) rows.set(key, vector);
      return Promise.resolve();
    },
  };
};

const conversation = (question: string): ChatMessage[] => [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: question },
];

/**
 * Tool selection with embeddings on the 500-tool API Zoo pool, through the node's own code (OpenAIEmbeddings,
 * toolVectors, ToolSelection) against a local /v1/embeddings server over Universal Sentence Encoder lite:
 * recall@k of the embeddings alone and of the hybrid on both halves, the fusions tried on half A, and the time
 * of one selection without and with embedding its query.
 */
export async function benchToolSelectionEmbeddings(): Promise<Record<string, Record<string, number>>> {
  const { questions, small, half } = apiZooPool();
  const server = await startLocalEmbeddingServer();
  try {
    const embedder = new OpenAIEmbeddings({ name: 'local', baseUrl: server.baseUrl });
    const embed = (texts: readonly string[]) => embedder.embed(LOCAL_EMBEDDING_MODEL, texts);
    const started = performance.now();
    const vectors = await toolVectors(
      small.map((schema) => ({ schema })),
      { store: memoryStore(), modelKey: `local/${LOCAL_EMBEDDING_MODEL}`, embed },
    );
    const toolsMs = performance.now() - started;
    const queryVectors = new Map<string, Float32Array>();
    const texts = [...new Set(questions.map((entry) => entry.question))];
    for (let start = 0; start < texts.length; start += QUESTION_BATCH) {
      const batch = texts.slice(start, start + QUESTION_BATCH);
      (await embed(batch)).forEach((vector, index) => queryVectors.set(batch[index], unitVector(vector)));
    }

    const documents = small.map((tool) => toolDocument(tool));
    const names = small.map((tool) => tool.function.name);
    const selection = (semantic: SemanticSearch, fusion?: Fusion) =>
      new ToolSelection(10, [], small, documents, semantic, fusion);
    const cached: SemanticSearch = {
      vectors,
      embed: (text) => Promise.resolve(queryVectors.get(text) ?? unitVector([])),
      onFailure: () => undefined,
    };
    const limit = Math.max(...KS);
    const embeddingsAlone = (set: readonly Question[]) =>
      recall(
        set.map(({ question, tool }) => {
          const cosines = similarities(vectors, queryVectors.get(question)!);
          const order = [...cosines.keys()].sort((a, b) => cosines[b] - cosines[a] || a - b);
          return { tool, ranked: order.slice(0, limit).map((index) => names[index]) };
        }),
      );
    const hybrid = async (set: readonly Question[], fusion?: Fusion) => {
      const sut = selection(cached, fusion);
      const rankings = [];
      for (const { question, tool } of set) {
        await sut.prepare([], undefined, question);
        rankings.push({ tool, ranked: sut.rank(question, limit).map((entry) => entry.name) });
      }
      return recall(rankings);
    };

    const results: Record<string, Record<string, number>> = {};
    for (const name of ['A', 'B'] as const) {
      const set = half(name);
      results[`embeddings alone, half ${name} (${set.length} questions)`] = embeddingsAlone(set);
      results[`hybrid (node default), half ${name}`] = await hybrid(set);
    }
    for (const fusion of FUSIONS) {
      const label = fusion.kind === 'weighted' ? `weighted, lexical ${fusion.lexicalWeight}` : `RRF k=${fusion.k}`;
      results[`half A, ${label}`] = await hybrid(half('A'), fusion);
    }
    results[`per selection of 10, ${small.length} tools, median ms`] = {
      'query embedded already': await timeSelections(selection(cached), names, questions, false),
      'query embedded by the server': await timeSelections(
        selection({ ...cached, embed: async (text) => unitVector((await embed([text]))[0]) }),
        names,
        questions.slice(0, TIMED_WITH_EMBEDDING),
        true,
      ),
      [`embedding the ${small.length} tools once, s`]: Number((toolsMs / 1000).toFixed(1)),
    };
    return results;
  } finally {
    await server.close();
  }
}

/** What the node does before each model call: embed the conversation's query (once), rank, pick k = 10. */
async function timeSelections(
  sut: ToolSelection,
  names: readonly string[],
  questions: readonly Question[],
  fresh: boolean,
): Promise<number> {
  const times: number[] = [];
  for (const { question } of questions) {
    // A question asked again would find its vector cached: make each one new when the embedding is timed.
    const messages = conversation(fresh ? `${question} ` : question);
    if (!fresh) await sut.prepare(messages);
    const started = performance.now();
    await sut.prepare(messages);
    sut.pick(messages, names);
    times.push(performance.now() - started);
  }
  return Number(median(times).toFixed(3));
}

if (require.main === module) {
  void benchToolSelectionEmbeddings().then((results) => console.table(results));
}
