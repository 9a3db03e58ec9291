import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AuditService, SYSTEM_ACTOR } from '../audit/audit.service';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { isDuplicateKey } from '../common/owned-queries';
import type { Principal } from '../common/auth/principal';
import { ApiKeyEntity } from './api-key.entity';
import { type Role } from '../shared/role';
import type { Page } from '../common/http/pagination';
import { LruCache } from '../shared/lru-cache';
import { errorMessage } from '../shared/error-text';
import type { Port } from '../common/port';
import { OWNER_LISTENER, type OwnerListener } from './owner-listener';
import { parseSort, toFindOrder } from '../common/http/sort';
import {
  API_KEY_DEFAULT_SORT,
  API_KEY_SORT_FIELDS,
  type ApiKeyResponse,
  type CreatedApiKeyResponse,
  type ListApiKeysQuery,
} from './api-key.dto';

const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
const newKey = (): string => `tf_${randomBytes(32).toString('base64url')}`;
export const BOOTSTRAP_ADMIN_USER = 'admin';
/**
 * How long a key that authenticated is trusted without asking the database again. A revoke through this
 * process takes effect at once; one through another process within this time.
 */
export const API_KEY_CACHE_TTL_MS = 5_000;
const API_KEY_CACHE_SIZE = 1_000;

const toResponse = (entity: ApiKeyEntity): ApiKeyResponse => ({
  id: entity.id,
  name: entity.name,
  role: entity.role,
  user_id: entity.userId,
  key_prefix: entity.keyPrefix,
  created_at: entity.createdAt.toISOString(),
  revoked_at: entity.revokedAt?.toISOString() ?? null,
});

@Injectable()
export class ApiKeysService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ApiKeysService.name);
  /** Only keys that authenticated, by hash: an unknown key is asked for each time, so a new key works at once. */
  private readonly authenticated = new LruCache<string, { principal: Principal; expiresAt: number }>(
    API_KEY_CACHE_SIZE,
  );

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    @Inject(OWNER_LISTENER) private readonly ownerListener: Port<OwnerListener>,
  ) {}

  /**
   * Makes sure an admin can log in: ADMIN_API_KEY is registered (or reactivated as an admin key when it
   * was revoked, which is how a locked-out operator recovers), or a key is generated and printed once.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.adminApiKey) {
      const keyHash = hashKey(this.config.adminApiKey);
      const existing = await this.keys.findOneBy({ keyHash });
      if (!existing) {
        try {
          await this.insertBootstrapAdmin('bootstrap admin (ADMIN_API_KEY)', this.config.adminApiKey);
        } catch (error) {
          // Processes starting together on one database: another one registered the key a moment ago.
          if (!isDuplicateKey(error)) throw error;
        }
      } else if (existing.revokedAt || existing.role !== 'admin') {
        await this.keys.update({ id: existing.id }, { revokedAt: null, role: 'admin' });
        await this.audit.record(this.keys.manager, SYSTEM_ACTOR, {
          action: 'update',
          type: 'api_key',
          id: existing.id,
          name: existing.name,
        });
        this.logger.warn({ keyId: existing.id }, 'ADMIN_API_KEY was revoked or not an admin key: reactivated as admin');
      }
      return;
    }
    const admins = await this.keys.countBy({ role: 'admin', revokedAt: IsNull() });
    if (admins > 0) return;
    const key = newKey();
    await this.insertBootstrapAdmin('bootstrap admin (generated)', key);
    // Printed once on purpose: it is the only way an operator who set no ADMIN_API_KEY can get in.
    process.stdout.write(
      `\n  No ADMIN_API_KEY was set, so an admin API key was generated. It is shown only this once:\n\n    ${key}\n\n`,
    );
    this.logger.warn('Generated a bootstrap admin API key (printed to stdout once)');
  }

  async authenticate(key: string): Promise<Principal | null> {
    const keyHash = hashKey(key);
    const cached = this.authenticated.get(keyHash);
    if (cached && cached.expiresAt > Date.now()) return cached.principal;
    const entity = await this.keys.findOneBy({ keyHash, revokedAt: IsNull() });
    if (!entity) {
      this.authenticated.delete(keyHash);
      return null;
    }
    const principal: Principal = { userId: entity.userId, role: entity.role, keyId: entity.id, keyName: entity.name };
    this.authenticated.set(keyHash, { principal, expiresAt: Date.now() + API_KEY_CACHE_TTL_MS });
    return principal;
  }

  async create(
    input: { name: string; role: Role; user_id?: string },
    principal: Principal,
  ): Promise<CreatedApiKeyResponse> {
    const key = newKey();
    const entity = await this.insert(input.name, input.role, input.user_id ?? randomUUID(), key);
    await this.audit.record(this.keys.manager, principal, {
      action: 'create',
      type: 'api_key',
      id: entity.id,
      name: entity.name,
    });
    return { ...toResponse(entity), key };
  }

  async list(query: ListApiKeysQuery): Promise<Page<ApiKeyResponse>> {
    const [entities, total] = await this.keys.findAndCount({
      order: toFindOrder(parseSort(query.sort, API_KEY_SORT_FIELDS, API_KEY_DEFAULT_SORT)),
      skip: (query.page - 1) * query.page_size,
      take: query.page_size,
    });
    return { items: entities.map(toResponse), page: query.page, page_size: query.page_size, total };
  }

  async revoke(id: string, principal: Principal): Promise<void> {
    const entity = await this.keys.findOneBy({ id });
    if (!entity) throw DomainError.notFound('API key', id);
    if (entity.id === principal.keyId) throw DomainError.conflict('An API key cannot revoke itself');
    if (!entity.revokedAt) await this.keys.update({ id }, { revokedAt: new Date() });
    await this.audit.record(this.keys.manager, principal, {
      action: 'revoke',
      type: 'api_key',
      id: entity.id,
      name: entity.name,
    });
    this.authenticated.delete(entity.keyHash);
    await this.removeOwnerWithoutKeys(entity.userId);
  }

  /** An owner whose last active key was revoked is gone: what was kept about their use goes too. */
  private async removeOwnerWithoutKeys(userId: string): Promise<void> {
    if ((await this.keys.countBy({ userId, revokedAt: IsNull() })) > 0) return;
    try {
      await this.ownerListener.get().ownerRemoved(userId);
    } catch (error) {
      this.logger.warn({ userId }, `Deleting data of a removed owner failed: ${errorMessage(error)}`);
    }
  }

  /** The admin key the service registers at start, audited with the system as its actor. */
  private async insertBootstrapAdmin(name: string, key: string): Promise<void> {
    const entity = await this.insert(name, 'admin', BOOTSTRAP_ADMIN_USER, key);
    await this.audit.record(this.keys.manager, SYSTEM_ACTOR, {
      action: 'create',
      type: 'api_key',
      id: entity.id,
      name,
    });
  }

  private async insert(name: string, role: Role, userId: string, key: string): Promise<ApiKeyEntity> {
    const entity = this.keys.create({
      id: randomUUID(),
      name,
      role,
      userId,
      keyHash: hashKey(key),
      keyPrefix: key.slice(0, 10),
      createdAt: new Date(),
      revokedAt: null,
    });
    await this.keys.insert(entity);
    return entity;
  }
}
