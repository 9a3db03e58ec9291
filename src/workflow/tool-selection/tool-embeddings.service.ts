import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { ToolEmbeddingEntity } from './tool-embedding.entity';
import type { ToolVectorStore } from './tool-vectors';

const ROWS_PER_STATEMENT = 100;

/** Stored tool embeddings (table `tool_embeddings`), written once per tool version and model. */
@Injectable()
export class ToolEmbeddingsService implements ToolVectorStore {
  constructor(@InjectRepository(ToolEmbeddingEntity) private readonly embeddings: Repository<ToolEmbeddingEntity>) {}

  async find(modelKey: string, toolKeys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    for (let start = 0; start < toolKeys.length; start += ROWS_PER_STATEMENT * 5) {
      const rows = await this.embeddings.find({
        where: { modelKey, toolKey: In(toolKeys.slice(start, start + ROWS_PER_STATEMENT * 5)) },
        select: { toolKey: true, vector: true },
      });
      for (const row of rows) found.set(row.toolKey, decodeVector(row.vector));
    }
    return found;
  }

  /** Inserts the vectors; one another process stored meanwhile is kept (same key, same text). */
  async save(modelKey: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const createdAt = new Date();
    const rows = [...vectors].map(([toolKey, vector]) => ({
      toolKey,
      modelKey,
      dimensions: vector.length,
      vector: encodeVector(vector),
      createdAt,
    }));
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      await this.embeddings
        .createQueryBuilder()
        .insert()
        .into(ToolEmbeddingEntity)
        .values(rows.slice(start, start + ROWS_PER_STATEMENT))
        .orIgnore()
        .execute();
    }
  }
}

const encodeVector = (vector: Float32Array): string =>
  Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');

const decodeVector = (text: string): Float32Array => {
  const bytes = Buffer.from(text, 'base64');
  // A copy: the Buffer may sit at an offset of a shared pool that is not 4-byte aligned.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};
