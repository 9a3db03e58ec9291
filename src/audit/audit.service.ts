import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { EntityManager, Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import type { Page } from '../common/http/pagination';
import { currentRequestId } from '../common/http/request-id';
import { AuditRecordEntity } from './audit-record.entity';
import type { AuditAction, AuditedObjectType, AuditRecordResponse, ListAuditQuery } from './audit.dto';

/** A change as the service that made it describes it: ids, a name and versions only, never the object's content. */
export interface AuditChange {
  action: AuditAction;
  type: AuditedObjectType;
  id: string;
  name?: string | null;
  before?: number | null;
  after?: number | null;
}

/**
 * The actor of changes the service makes itself, with no request and no API key: the shipped tools it seeds and
 * the admin key it registers from ADMIN_API_KEY (or generates) at start.
 */
export const SYSTEM_ACTOR: Principal = {
  userId: 'system',
  role: 'admin',
  keyId: 'system',
  keyName: 'ToolFlow start-up (shipped tools, ADMIN_API_KEY)',
};

const toResponse = (row: AuditRecordEntity): AuditRecordResponse => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  actor: { key_id: row.actorKeyId, key_name: row.actorKeyName, user_id: row.actorUserId },
  action: row.action as AuditAction,
  object: { type: row.objectType as AuditedObjectType, id: row.objectId, name: row.objectName },
  before_version: row.beforeVersion,
  after_version: row.afterVersion,
  request_id: row.requestId,
});

/**
 * The audit trail: the one place that records who changed what. Services call `record` with the EntityManager of
 * the write they make (inside its transaction where there is one), so a change and its record are stored together.
 * Records hold ids, names and version numbers only: no content, so no secret can end up here.
 */
@Injectable()
export class AuditService {
  constructor(@InjectRepository(AuditRecordEntity) private readonly records: Repository<AuditRecordEntity>) {}

  async record(manager: EntityManager, principal: Principal, change: AuditChange): Promise<void> {
    await manager.insert(AuditRecordEntity, {
      id: randomUUID(),
      createdAt: new Date(),
      actorKeyId: principal.keyId.slice(0, 64),
      actorKeyName: principal.keyName?.slice(0, 128) ?? null,
      actorUserId: principal.userId,
      action: change.action,
      objectType: change.type,
      objectId: change.id.slice(0, 64),
      objectName: change.name?.slice(0, 256) ?? null,
      beforeVersion: change.before ?? null,
      afterVersion: change.after ?? null,
      requestId: currentRequestId(),
    });
  }

  /** Newest first, filtered by actor, object and time. */
  async list(query: ListAuditQuery): Promise<Page<AuditRecordResponse>> {
    const builder = this.records.createQueryBuilder('record');
    if (query.actor_user_id !== undefined)
      builder.andWhere('record.actorUserId = :user', { user: query.actor_user_id });
    if (query.actor_key_id !== undefined) builder.andWhere('record.actorKeyId = :key', { key: query.actor_key_id });
    if (query.object_type !== undefined) builder.andWhere('record.objectType = :type', { type: query.object_type });
    if (query.object_id !== undefined) builder.andWhere('record.objectId = :object', { object: query.object_id });
    if (query.from !== undefined) builder.andWhere('record.createdAt >= :from', { from: new Date(query.from) });
    if (query.to !== undefined) builder.andWhere('record.createdAt < :to', { to: new Date(query.to) });
    const [rows, total] = await builder
      .orderBy('record.createdAt', 'DESC')
      .addOrderBy('record.id', 'ASC')
      .skip((query.page - 1) * query.page_size)
      .take(query.page_size)
      .getManyAndCount();
    return { items: rows.map(toResponse), page: query.page, page_size: query.page_size, total };
  }
}
