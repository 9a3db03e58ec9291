import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { LruCache } from '../../shared/lru-cache';
import { ToolEmbeddingEntity } from './tool-embedding.entity';
import type { ToolVectorStore } from './tool-vectors';

const ROWS_PER_INSERT = 100;
const KEYS_PER_SELECT = 500;
/** Vectors kept in memory: 4096 × 1536 float32 dimensions is 25 MB at most. */
const CACHED_VECTORS = 4096;

/**
 * Stored tool embeddings (table `tool_embeddings`), written once per tool version and model; the vectors read
 * or written last are kept in memory, so a node over the same tools does not read them again.
 */
@Injectable()
export class ToolEmbeddingsService implements ToolVectorStore {
  private readonly cache = new LruCache<string, Float32Array>(CACHED_VECTORS);

  constructor(@InjectRepository(ToolEmbeddingEntity) private readonly embeddings: Repository<ToolEmbeddingEntity>) {}

  async find(modelKey: string, toolKeys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const toolKey of toolKeys) {
      const cached = this.cache.get(`${modelKey} ${toolKey}`);
      if (cached === undefined) missing.push(toolKey);
      else found.set(toolKey, cached);
    }
    for (let start = 0; start < missing.length; start += KEYS_PER_SELECT) {
      const rows = await this.embeddings.find({
        where: { modelKey, toolKey: In(missing.slice(start, start + KEYS_PER_SELECT)) },
        select: { toolKey: true, vector: true },
      });
      for (const row of rows) {
        const vector = decodeVector(row.vector);
        this.cache.set(`${modelKey} ${row.toolKey}`, vector);
        found.set(row.toolKey, vector);
      }
    }
    return found;
  }

  /** Inserts the vectors; a row another process stored meanwhile is kept (same key, same text embedded). */
  async save(modelKey: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const createdAt = new Date();
    const rows = [...vectors].map(([toolKey, vector]) => ({
      toolKey,
      modelKey,
      dimensions: vector.length,
      vector: encodeVector(vector),
      createdAt,
    }));
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      await this.embeddings
        .createQueryBuilder()
        .insert()
        .into(ToolEmbeddingEntity)
        .values(rows.slice(start, start + ROWS_PER_INSERT))
        .orIgnore()
        .execute();
    }
    for (const [toolKey, vector] of vectors) this.cache.set(`${modelKey} ${toolKey}`, vector);
  }
}

const encodeVector = (vector: Float32Array): string =>
  Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');

const decodeVector = (text: string): Float32Array => {
  const bytes = Buffer.from(text, 'base64');
  // A copy: the Buffer may sit at an offset of a shared pool that is not 4-byte aligned.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};
