import { createHash } from 'node:crypto';
import type { FunctionTool } from '../../shared/tool-types';
import { embeddingText, unitVector } from './semantic-ranking';

/** Texts per embeddings request. */
export const EMBEDDING_BATCH = 64;

/** Where tool vectors are kept, by tool key and `<provider>/<model>` (the workflow module's table). */
export interface ToolVectorStore {
  find(modelKey: string, toolKeys: readonly string[]): Promise<Map<string, Float32Array>>;
  save(modelKey: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void>;
}

/** A tool to embed: its schema and, for a stored tool, its id and version. */
export interface EmbeddedTool {
  schema: FunctionTool;
  id?: string;
  version?: number;
}

export interface ToolVectorsOptions {
  store: ToolVectorStore;
  modelKey: string;
  embed: (texts: readonly string[]) => Promise<number[][]>;
}

/** The key of a tool's vector: its version and the hash of the text embedded (which may change with ToolFlow). */
export function toolVectorKey(tool: EmbeddedTool): string {
  const hash = createHash('sha256').update(embeddingText(tool.schema)).digest('hex').slice(0, 16);
  const owner =
    tool.id !== undefined && tool.version !== undefined ? `${tool.id}@${tool.version}` : tool.schema.function.name;
  return `${owner.slice(0, 110)}:${hash}`;
}

/**
 * One unit vector per tool, in order: read from the store, and the missing ones embedded in batches of
 * EMBEDDING_BATCH and stored, so each tool version is embedded once per model.
 */
export async function toolVectors(
  tools: readonly EmbeddedTool[],
  options: ToolVectorsOptions,
): Promise<Float32Array[]> {
  const keys = tools.map(toolVectorKey);
  const vectors = await options.store.find(options.modelKey, [...new Set(keys)]);
  const missing = [...new Map(keys.map((key, index) => [key, tools[index]] as const)).entries()].filter(
    ([key]) => !vectors.has(key),
  );
  for (let start = 0; start < missing.length; start += EMBEDDING_BATCH) {
    const batch = missing.slice(start, start + EMBEDDING_BATCH);
    const embedded = await options.embed(batch.map(([, tool]) => embeddingText(tool.schema)));
    const computed = new Map(batch.map(([key], index) => [key, unitVector(embedded[index])] as const));
    // Stored per batch: what was embedded before a later batch fails is not asked for again.
    await options.store.save(options.modelKey, computed);
    for (const [key, vector] of computed) vectors.set(key, vector);
  }
  return keys.map((key) => vectors.get(key) as Float32Array);
}
