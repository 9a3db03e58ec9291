import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, In, Repository } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import type { Port } from '../common/port';
import type { ImplementationType } from '../shared/tool-types';
import { dependantsConflict } from '../common/dependants';
import { DomainError } from '../common/errors/domain-error';
import { incrementColumn, incrementStatement, selectRows, type Statement } from '../common/plain-sql';
import {
  assertCanChange,
  isDuplicateKey,
  pickByName,
  whereNameOrDescriptionContains,
  whereVisibleTo,
} from '../common/owned-queries';
import type { Page } from '../common/http/pagination';
import { parseSort, toBuilderOrder } from '../common/http/sort';
import { assertVersionMatches, type VersionPrecondition } from '../common/http/etag';
import type { SchemaWarning } from './function-schema';
import {
  type BuiltinToolResponse,
  type CreateToolDto,
  type ImplementationTypeResponse,
  type ListToolsQuery,
  TOOL_DEFAULT_SORT,
  type ToolPreview,
  TOOL_SORT_FIELDS,
  type ToolResponse,
  type UpdateToolDto,
} from './tool.dto';
import { ToolEntity } from './tool.entity';
import { AuditService } from '../audit/audit.service';
import { ToolVersionEntity } from './tool-version.entity';
import { type StoredTool, toStoredTool } from './stored-tool';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from './tool-implementations';
import { TOOL_DEPENDANTS, type ToolDependants } from './tool-dependants';
import { TOOL_VERSION_LISTENER, type ToolVersionChange, type ToolVersionListener } from './tool-version-listener';
import { errorMessage } from '../shared/error-text';
import { ToolFieldsService } from './tool-fields.service';
import { asRow, findVisibleTool, nameTaken, snapshotRow } from './tool-rows';
import { ToolVersionsService } from './tool-versions.service';

/**
 * Stored tools: create, read, write (each write a new version), delete, with visibility and ownership. The
 * rules a body must pass are ToolFieldsService's; saved versions are ToolVersionsService's.
 */
@Injectable()
export class ToolsService {
  private readonly logger = new Logger(ToolsService.name);

  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
    private readonly fields: ToolFieldsService,
    private readonly versions: ToolVersionsService,
    @Inject(TOOL_DEPENDANTS) private readonly dependants: Port<ToolDependants>,
    @Inject(TOOL_VERSION_LISTENER) private readonly versionListener: Port<ToolVersionListener>,
    private readonly audit: AuditService,
  ) {}

  async list(query: ListToolsQuery, principal: Principal): Promise<Page<ToolResponse>> {
    const builder = this.tools.createQueryBuilder('tool');
    whereVisibleTo(builder, principal);
    if (query.category) builder.andWhere('tool.category = :category', { category: query.category });
    if (query.implementation_type)
      builder.andWhere('tool.implementationType = :type', { type: query.implementation_type });
    if (query.enabled !== undefined) builder.andWhere('tool.enabled = :enabled', { enabled: query.enabled ? 1 : 0 });
    whereNameOrDescriptionContains(builder, query.q);
    const [entities, total] = await builder
      .orderBy(toBuilderOrder('tool', parseSort(query.sort, TOOL_SORT_FIELDS, TOOL_DEFAULT_SORT)))
      .skip((query.page - 1) * query.page_size)
      .take(query.page_size)
      .getManyAndCount();
    return {
      items: entities.map((entity) => this.toResponse(entity)),
      page: query.page,
      page_size: query.page_size,
      total,
    };
  }

  listBuiltins(): BuiltinToolResponse[] {
    return this.implementations.shippedTools().map((shipped) => ({
      name: shipped.name,
      description: shipped.description,
      category: shipped.category,
      effect: shipped.effect,
      implementation_type: shipped.implementationType,
      function_schema: shipped.functionSchema as unknown as Record<string, unknown>,
    }));
  }

  implementationTypes(): ImplementationTypeResponse[] {
    return this.implementations.describe();
  }

  async get(idOrName: string, principal: Principal): Promise<ToolResponse> {
    return this.toResponse(await this.findVisibleEntity(idOrName, principal));
  }

  /** A tool the principal may see, by id or name; invisible tools are reported as missing. */
  async findVisible(idOrName: string, principal: Principal): Promise<StoredTool> {
    return toStoredTool(await this.findVisibleEntity(idOrName, principal));
  }

  /** Tools by name for an LLM node, in one query; names the principal may not use are left out. */
  async findUsableByNames(names: readonly string[], principal: Principal): Promise<StoredTool[]> {
    if (names.length === 0) return [];
    const entities = await selectRows(this.tools.manager, ToolEntity, { name: names });
    return names
      .map((name) =>
        pickByName(
          entities.filter((entity) => entity.name === name),
          principal,
        ),
      )
      .filter((entity): entity is ToolEntity => entity !== undefined)
      .map(toStoredTool);
  }

  /** Enabled tools the principal may use, every one or those of one category: what an LLM node's selectors name. */
  async findUsable(category: string | null, principal: Principal): Promise<StoredTool[]> {
    const entities = await this.tools.find(category === null ? {} : { where: { category } });
    const byName = new Map<string, ToolEntity[]>();
    for (const entity of entities) byName.set(entity.name, [...(byName.get(entity.name) ?? []), entity]);
    return [...byName.keys()]
      .sort()
      .map((name) => pickByName(byName.get(name) ?? [], principal))
      .filter((entity): entity is ToolEntity => entity !== undefined && entity.enabled)
      .map(toStoredTool);
  }

  private findVisibleEntity(idOrName: string, principal: Principal): Promise<ToolEntity> {
    return findVisibleTool(this.tools, idOrName, principal);
  }

  async create(input: CreateToolDto, principal: Principal): Promise<ToolResponse & { warnings: SchemaWarning[] }> {
    const { fields, warnings } = await this.fields.build(input, principal, null);
    const now = new Date();
    const entity = this.tools.create({
      ...fields,
      id: randomUUID(),
      userId: principal.userId,
      useCount: 0,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await this.tools.manager.transaction(async (manager) => {
        await manager.insert(ToolEntity, asRow(entity));
        await manager.insert(ToolVersionEntity, snapshotRow(entity.id, 1, entity, now));
        await this.audit.record(manager, principal, {
          action: 'create',
          type: 'tool',
          id: entity.id,
          name: entity.name,
          after: 1,
        });
      });
    } catch (error) {
      if (isDuplicateKey(error)) throw nameTaken(input.name, entity.isPublic);
      throw error;
    }
    return { ...this.toResponse(entity), warnings };
  }

  /** What `create` would store, checked by the same rules, without storing it (dry runs). */
  async preview(input: CreateToolDto, principal: Principal): Promise<ToolPreview> {
    const { fields, warnings } = await this.fields.build(input, principal, null);
    return {
      name: fields.name,
      description: fields.description,
      category: fields.category,
      function_schema: fields.functionSchema as unknown as Record<string, unknown>,
      implementation_type: fields.implementationType,
      implementation_config: this.implementations.mask(fields.implementationType, fields.implementationConfig),
      effect: fields.effect,
      requires_approval: fields.requiresApproval,
      is_public: fields.isPublic,
      enabled: fields.enabled,
      user_id: principal.userId,
      warnings,
    };
  }

  /** PUT: every field from the body, defaults for the optional ones. */
  async replace(idOrName: string, input: CreateToolDto, principal: Principal, ifMatch?: VersionPrecondition) {
    return this.write(idOrName, principal, ifMatch, () => input);
  }

  /** PATCH: the body's fields over the stored ones. */
  async update(idOrName: string, input: UpdateToolDto, principal: Principal, ifMatch?: VersionPrecondition) {
    return this.write(idOrName, principal, ifMatch, (existing) => ({
      name: input.name ?? existing.name,
      description: input.description ?? existing.description,
      category: input.category ?? existing.category,
      function_schema:
        input.function_schema ??
        (input.name && input.name !== existing.name
          ? { ...existing.functionSchema, function: { ...existing.functionSchema.function, name: input.name } }
          : (existing.functionSchema as unknown as Record<string, unknown>)),
      implementation_type: input.implementation_type ?? existing.implementationType,
      implementation_config:
        input.implementation_config ??
        (input.implementation_type && input.implementation_type !== existing.implementationType
          ? {}
          : existing.implementationConfig),
      effect: input.effect ?? existing.effect,
      // A new effect without an explicit choice takes that effect's default.
      requires_approval:
        input.requires_approval ??
        (input.effect !== undefined && input.effect !== existing.effect ? undefined : existing.requiresApproval),
      is_public: input.is_public ?? existing.isPublic,
      enabled: input.enabled ?? existing.enabled,
    }));
  }

  /** Refuses (409) while stored workflows use the tool, unless `force`: then those workflows are disabled. */
  async remove(idOrName: string, principal: Principal, force = false): Promise<void> {
    const entity = await this.findVisibleEntity(idOrName, principal);
    assertCanChange(entity, principal, 'tool');
    const dependants = await this.dependants.get().workflowsUsing(toStoredTool(entity));
    if (dependants.length > 0 && !force) throw dependantsConflict(`Tool "${entity.name}"`, dependants, principal);
    await this.tools.delete({ id: entity.id });
    await this.audit.record(this.tools.manager, principal, {
      action: 'delete',
      type: 'tool',
      id: entity.id,
      name: entity.name,
      before: entity.version,
    });
    await this.dependants.get().disableWorkflows(dependants.map((dependant) => dependant.id));
    await this.versionsChanged([{ id: entity.id, version: null }]);
  }

  /**
   * Deletes several tools together (e.g. those of a removed MCP server): when stored workflows use any of them
   * and `force` is false, a 409 lists every dependant and nothing is deleted.
   */
  async removeMany(ids: readonly string[], principal: Principal, what: string, force = false): Promise<void> {
    if (ids.length === 0) return;
    const entities = await this.tools.findBy({ id: In([...ids]) });
    for (const entity of entities) assertCanChange(entity, principal, 'tool');
    const dependants = [];
    for (const entity of entities)
      dependants.push(...(await this.dependants.get().workflowsUsing(toStoredTool(entity))));
    const unique = [...new Map(dependants.map((dependant) => [dependant.id, dependant])).values()];
    if (unique.length > 0 && !force) throw dependantsConflict(what, unique, principal);
    await this.tools.delete({ id: In(entities.map((entity) => entity.id)) });
    for (const entity of entities)
      await this.audit.record(this.tools.manager, principal, {
        action: 'delete',
        type: 'tool',
        id: entity.id,
        name: entity.name,
        before: entity.version,
      });
    await this.dependants.get().disableWorkflows(unique.map((dependant) => dependant.id));
    await this.versionsChanged(entities.map((entity) => ({ id: entity.id, version: null })));
  }

  /** The current version of each of the tools that still exist. */
  async currentVersions(ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.tools.find({ where: { id: In([...ids]) }, select: { id: true, version: true } });
    return new Map(rows.map((row) => [row.id, row.version]));
  }

  /** Every tool of one implementation type, whoever owns it (for finding what points at a row). */
  async findByImplementationType(type: ImplementationType): Promise<StoredTool[]> {
    return (await this.tools.findBy({ implementationType: type })).map(toStoredTool);
  }

  /** Turns tools off without a version change of their schema (their target is gone). */
  async disable(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.tools.update({ id: In([...ids]) }, asRow({ enabled: false, updatedAt: new Date() }));
  }

  /** Tools to export: the named ones (ids or names; 404 for one the caller cannot see), or every visible one but the shipped builtins. */
  async exportable(idsOrNames: readonly string[] | null, principal: Principal): Promise<ToolResponse[]> {
    if (idsOrNames !== null) {
      const entities = [];
      for (const idOrName of idsOrNames) entities.push(await this.findVisibleEntity(idOrName, principal));
      return [...new Map(entities.map((entity) => [entity.id, this.toResponse(entity)])).values()];
    }
    const builder = this.tools.createQueryBuilder('tool');
    whereVisibleTo(builder, principal);
    builder.andWhere(
      new Brackets((own) =>
        own.where('tool.userId IS NOT NULL').orWhere('tool.implementationType != :builtin', { builtin: 'builtin' }),
      ),
    );
    const entities = await builder.orderBy('tool.name', 'ASC').addOrderBy('tool.id', 'ASC').getMany();
    return entities.map((entity) => this.toResponse(entity));
  }

  /** Tells the listener above; a failure is logged, not the caller's: a later sweep of the listener's data catches up. */
  private async versionsChanged(changes: ToolVersionChange[]): Promise<void> {
    try {
      await this.versionListener.get().toolsChanged(changes);
    } catch (error) {
      this.logger.warn(`Dropping data of older tool versions failed: ${errorMessage(error)}`);
    }
  }

  /** A new version with the schema and implementation of an earlier one; visibility and enabled stay as they are. */
  async rollback(idOrName: string, version: number, principal: Principal) {
    return this.write(idOrName, principal, undefined, async (existing) => {
      const row = await this.versions.find(existing, version);
      return {
        name: row.name,
        description: row.description,
        category: row.category,
        function_schema: row.functionSchema as unknown as Record<string, unknown>,
        implementation_type: row.implementationType,
        implementation_config: row.implementationConfig,
        effect: row.effect,
        requires_approval: row.requiresApproval,
        is_public: existing.isPublic,
        enabled: existing.enabled,
      };
    });
  }

  async incrementUseCount(id: string, by = 1): Promise<void> {
    await incrementColumn(this.tools.manager, ToolEntity, { id }, 'useCount', by);
  }

  /** incrementUseCount's UPDATE, built but not sent (it goes with other statements: see inOrder). */
  useCountIncrement(id: string, by: number): Statement {
    return incrementStatement(this.tools.manager, ToolEntity, { id }, 'useCount', by);
  }

  private async write(
    idOrName: string,
    principal: Principal,
    ifMatch: VersionPrecondition | undefined,
    merge: (existing: ToolEntity) => CreateToolDto | Promise<CreateToolDto>,
  ): Promise<ToolResponse & { warnings: SchemaWarning[] }> {
    const existing = await this.findVisibleEntity(idOrName, principal);
    assertCanChange(existing, principal, 'tool');
    assertVersionMatches(ifMatch, existing.version, `Tool "${existing.name}"`);
    const candidate = await merge(existing);
    const { fields, warnings } = await this.fields.build(candidate, principal, existing);
    const updated = { ...fields, version: existing.version + 1, updatedAt: new Date() };
    let result;
    try {
      result = await this.tools.manager.transaction(async (manager) => {
        const changed = await manager.update(
          ToolEntity,
          { id: existing.id, version: existing.version },
          asRow(updated),
        );
        if (changed.affected !== 0) {
          await manager.insert(ToolVersionEntity, snapshotRow(existing.id, updated.version, fields, updated.updatedAt));
          await this.audit.record(manager, principal, {
            action: 'update',
            type: 'tool',
            id: existing.id,
            name: fields.name,
            before: existing.version,
            after: updated.version,
          });
        }
        return changed;
      });
    } catch (error) {
      if (isDuplicateKey(error)) throw nameTaken(candidate.name, fields.isPublic);
      throw error;
    }
    if (result.affected === 0) {
      throw DomainError.conflict(`Tool "${existing.name}" was changed by another request; read it again and retry`);
    }
    await this.versionsChanged([{ id: existing.id, version: updated.version }]);
    return { ...this.toResponse(this.tools.merge(existing, updated)), warnings };
  }

  toResponse(entity: ToolEntity): ToolResponse {
    return {
      id: entity.id,
      name: entity.name,
      description: entity.description,
      category: entity.category,
      function_schema: entity.functionSchema as unknown as Record<string, unknown>,
      implementation_type: entity.implementationType,
      implementation_config: this.implementations.mask(entity.implementationType, entity.implementationConfig),
      effect: entity.effect,
      requires_approval: entity.requiresApproval,
      is_public: entity.isPublic,
      enabled: entity.enabled,
      user_id: entity.userId,
      use_count: entity.useCount,
      version: entity.version,
      created_at: entity.createdAt.toISOString(),
      updated_at: entity.updatedAt.toISOString(),
    };
  }
}
