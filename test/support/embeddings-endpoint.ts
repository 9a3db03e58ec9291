import type { RecordedRequest } from './recorded-request';

/**
 * How a test server's embeddings endpoint answers: a vector per text, an error status with its body, or a
 * connection cut without an answer (`drop`, e.g. a pooled connection the server closed).
 */
export type EmbeddingsBehaviour =
  | { kind: 'vectors'; embed: (text: string, model: string) => number[] }
  | { kind: 'status'; status: number; body: unknown }
  | { kind: 'drop' };

/** What `embedWith` scripts: each request takes the next behaviour; the last one answers every later request. */
export class EmbeddingsScript {
  private behaviours: EmbeddingsBehaviour[] = [];

  set(behaviours: EmbeddingsBehaviour[]): void {
    this.behaviours = [...behaviours];
  }

  next(): EmbeddingsBehaviour | undefined {
    return this.behaviours.length > 1 ? this.behaviours.shift() : this.behaviours[0];
  }
}

export type EmbeddingsAnswer = { status: number; body: unknown } | { drop: true };

const inputsOf = (request: RecordedRequest): string[] => {
  const input = request.body.input;
  return Array.isArray(input) ? input.map(String) : [String(input)];
};

const modelOf = (request: RecordedRequest): string =>
  typeof request.body.model === 'string' ? request.body.model : 'test-embedding-model';

/** Float32 little-endian, base64: what the OpenAI API sends for `encoding_format: "base64"`. */
const base64Vector = (vector: readonly number[]): string =>
  Buffer.from(new Float32Array(vector).buffer).toString('base64');

/** OpenAI's `POST /v1/embeddings` answer, floats or base64 as the request asks. */
export function openaiEmbeddings(
  request: RecordedRequest,
  behaviour: EmbeddingsBehaviour | undefined,
): EmbeddingsAnswer {
  if (behaviour === undefined) return { status: 404, body: { error: { message: 'no embeddings scripted' } } };
  if (behaviour.kind === 'drop') return { drop: true };
  if (behaviour.kind === 'status') return behaviour;
  const model = modelOf(request);
  const texts = inputsOf(request);
  const base64 = request.body.encoding_format === 'base64';
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return {
    status: 200,
    body: {
      object: 'list',
      data: texts.map((text, index) => {
        const vector = behaviour.embed(text, model);
        return { object: 'embedding', index, embedding: base64 ? base64Vector(vector) : vector };
      }),
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

/** Ollama's `POST /api/embed` answer. */
export function ollamaEmbed(request: RecordedRequest, behaviour: EmbeddingsBehaviour | undefined): EmbeddingsAnswer {
  if (behaviour === undefined) return { status: 404, body: { error: 'no embeddings scripted' } };
  if (behaviour.kind === 'drop') return { drop: true };
  if (behaviour.kind === 'status') return behaviour;
  const model = modelOf(request);
  const texts = inputsOf(request);
  return {
    status: 200,
    body: {
      model,
      embeddings: texts.map((text) => behaviour.embed(text, model)),
      total_duration: 1000,
      load_duration: 10,
      prompt_eval_count: texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0),
    },
  };
}

/**
 * A scripted "semantic" model: one dimension per group of words that mean the same thing to the test, plus a
 * constant one, so texts that share no word but a meaning get close vectors.
 */
export const conceptEmbedder =
  (concepts: ReadonlyArray<readonly string[]>) =>
  (text: string): number[] => {
    const lower = text.toLowerCase();
    return [0.1, ...concepts.map((words) => (words.some((word) => lower.includes(word)) ? 1 : 0))];
  };
