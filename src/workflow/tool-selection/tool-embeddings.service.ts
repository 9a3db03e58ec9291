import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { errorMessage } from '../../shared/error-text';
import { LruCache } from '../../shared/lru-cache';
import type { ToolVersionChange, ToolVersionListener } from '../../tools/tool-version-listener';
import { ToolsService } from '../../tools/tools.service';
import { ToolEmbeddingEntity } from './tool-embedding.entity';
import type { ToolVectorStore } from '../../agent/selection/tool-vectors';

const ROWS_PER_INSERT = 100;
const KEYS_PER_SELECT = 500;
/** Vectors kept in memory: 4096 × 1536 float32 dimensions is 25 MB at most. */
const CACHED_VECTORS = 4096;
/** Tool keys the sweep reads (and at most deletes) per statement. */
const SWEEP_PAGE = 500;
/** `<tool id>@<version>:<text hash>`: the key of a stored tool's vector (see toolVectorKey). */
const STORED_TOOL_KEY = /^(.+)@(\d+):[0-9a-f]+$/;

/** `text` as a LIKE pattern of itself, with `!` as the escape character (SQLite has no default one). */
const likeLiteral = (text: string): string => text.replace(/[!%_]/g, (character) => `!${character}`);

/**
 * Stored tool embeddings (table `tool_embeddings`), written once per tool version and model; the vectors read
 * or written last are kept in memory, so a node over the same tools does not read them again. The vectors of
 * a deleted tool and of a tool's older versions are deleted when ToolsService says so and, for what was missed
 * (a failed delete, a change made by an import or before this existed), by a sweep after each start.
 */
@Injectable()
export class ToolEmbeddingsService
  implements ToolVectorStore, ToolVersionListener, OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly cache = new LruCache<string, Float32Array>(CACHED_VECTORS);
  private readonly logger = new Logger(ToolEmbeddingsService.name);
  private sweeping: Promise<void> | undefined;
  private stopping = false;

  constructor(
    @InjectRepository(ToolEmbeddingEntity) private readonly embeddings: Repository<ToolEmbeddingEntity>,
    @Inject(ToolsService) private readonly tools: Pick<ToolsService, 'currentVersions'>,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeping = this.sweep().then(
      (deleted) => {
        if (deleted > 0) this.logger.log(`Deleted ${deleted} stored vectors of deleted tools or older tool versions`);
      },
      (error: unknown) => this.logger.warn(`Sweeping stored tool vectors failed: ${errorMessage(error)}`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.sweeping;
  }

  /** Deletes the vectors of the tools' other versions (every version of a deleted tool), for every model. */
  async toolsChanged(changes: readonly ToolVersionChange[]): Promise<void> {
    for (const { id, version } of changes) {
      const builder = this.embeddings
        .createQueryBuilder()
        .delete()
        .from(ToolEmbeddingEntity)
        .where("tool_key LIKE :owner ESCAPE '!'", { owner: `${likeLiteral(id)}@%` });
      if (version !== null)
        builder.andWhere("tool_key NOT LIKE :current ESCAPE '!'", { current: `${likeLiteral(`${id}@${version}`)}:%` });
      await builder.execute();
    }
  }

  /**
   * Walks the stored tools' keys in pages of `pageSize` and deletes those of tools that no longer exist or
   * stand at another version now; the number of keys deleted. Stops early when the application shuts down.
   */
  async sweep(pageSize = SWEEP_PAGE): Promise<number> {
    let after = '';
    let deleted = 0;
    while (!this.stopping) {
      const keys = (
        await this.embeddings
          .createQueryBuilder('embedding')
          .select('DISTINCT embedding.tool_key', 'toolKey')
          .where('embedding.tool_key > :after', { after })
          .orderBy('embedding.tool_key', 'ASC')
          .limit(pageSize)
          .getRawMany<{ toolKey: string }>()
      ).map((row) => row.toolKey);
      if (keys.length === 0) break;
      after = keys[keys.length - 1];
      const owners = keys.flatMap((toolKey) => {
        const match = STORED_TOOL_KEY.exec(toolKey);
        return match === null ? [] : [{ toolKey, id: match[1], version: Number(match[2]) }];
      });
      const current = await this.tools.currentVersions([...new Set(owners.map((owner) => owner.id))]);
      const stale = owners.filter((owner) => current.get(owner.id) !== owner.version).map((owner) => owner.toolKey);
      if (stale.length > 0) await this.embeddings.delete({ toolKey: In(stale) });
      deleted += stale.length;
      if (keys.length < pageSize) break;
    }
    return deleted;
  }

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
