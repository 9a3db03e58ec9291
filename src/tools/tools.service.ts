import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { RESERVED_TOOL_NAMES } from '../shared/reserved-tool-names';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, type EntityManager, In, IsNull, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAdmin, type Principal } from '../common/auth/principal';
import { dropMaskedValues } from '../shared/secrets';
import type { ImplementationType, ToolEffect } from '../shared/tool-types';
import { dependantsConflict } from '../common/dependants';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import {
  assertCanChange,
  byIdOrName,
  isDuplicateKey,
  isVisibleTo,
  pickByName,
  whereNameOrDescriptionContains,
  whereVisibleTo,
} from '../common/owned-queries';
import type { Page } from '../common/http/pagination';
import { parseSort, toBuilderOrder } from '../common/http/sort';
import { assertVersionMatches, type VersionPrecondition } from '../common/http/etag';
import { normalizeFunctionSchema, type SchemaWarning } from './function-schema';
import {
  type BuiltinToolResponse,
  type CreateToolDto,
  type ImplementationTypeResponse,
  type ListToolsQuery,
  TOOL_DEFAULT_SORT,
  type ToolPreview,
  type ToolVersionResponse,
  type ToolVersionSummary,
  TOOL_SORT_FIELDS,
  type ToolResponse,
  type UpdateToolDto,
} from './tool.dto';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { type PinnedTool, type StoredTool, type ToolPin, toStoredTool } from './stored-tool';
import { type ConfigProblem, TOOL_IMPLEMENTATIONS, type ToolImplementations } from './tool-implementations';
import { TOOL_DEPENDANTS, type ToolDependants } from './tool-dependants';

// TypeORM's deep-partial type cannot follow JSON columns typed as open records.
const asRow = (row: Partial<ToolEntity>) => row as QueryDeepPartialEntity<ToolEntity>;

const toConfigFields = (problems: readonly ConfigProblem[]): FieldProblem[] =>
  problems.map((problem) => ({
    field: problem.path ? `implementation_config${problem.path.replace(/\//g, '.')}` : 'implementation_config',
    message: problem.message,
  }));

type Snapshot = Pick<
  ToolEntity,
  | 'name'
  | 'description'
  | 'category'
  | 'functionSchema'
  | 'implementationType'
  | 'implementationConfig'
  | 'effect'
  | 'requiresApproval'
>;

const snapshotRow = (toolId: string, version: number, tool: Snapshot, at: Date) =>
  ({
    id: randomUUID(),
    toolId,
    version,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    functionSchema: tool.functionSchema,
    implementationType: tool.implementationType,
    implementationConfig: tool.implementationConfig,
    effect: tool.effect,
    requiresApproval: tool.requiresApproval,
    createdAt: at,
  }) as QueryDeepPartialEntity<ToolVersionEntity>;

/** `requires_approval` when a tool does not say: dangerous tools wait for a person. */
export const requiresApprovalByDefault = (effect: ToolEffect): boolean => effect === 'dangerous';

type ToolFields = Pick<
  ToolEntity,
  | 'name'
  | 'description'
  | 'category'
  | 'functionSchema'
  | 'implementationType'
  | 'implementationConfig'
  | 'effect'
  | 'requiresApproval'
  | 'isPublic'
  | 'publicName'
  | 'enabled'
>;

/** A tool an import has checked and stores in its transaction: a new one, or a new version of the caller's own. */
export interface PlannedTool {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  /** The caller's tool this one becomes the next version of; null: a new tool. */
  readonly replaces: { readonly version: number } | null;
  /** Config paths of secrets that came masked and are left unset (they need a PUT or PATCH). */
  readonly unsetSecrets: string[];
  readonly fields: ToolFields;
}

/** Names an import may clash with: the caller's own tools and the public ones, each name to its tool id. */
export interface TakenNames {
  readonly own: ReadonlyMap<string, string>;
  readonly public: ReadonlyMap<string, string>;
}

/** Names are unique per owner and, for public tools, among public tools; other users' private names never clash. */
const nameTaken = (name: string, isPublic: boolean): DomainError =>
  DomainError.conflict(
    isPublic
      ? `A tool named "${name}" already exists among your tools or the public ones`
      : `You already have a tool named "${name}"`,
    'name',
  );

/** Stored tools: CRUD with the validation rules of the API, visibility and ownership. */
@Injectable()
export class ToolsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ToolsService.name);

  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @InjectRepository(ToolVersionEntity) private readonly versions: Repository<ToolVersionEntity>,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Seeds every shipped tool as a public one; refreshes seeds nobody has edited when the code's schema changes. */
  async onApplicationBootstrap(): Promise<void> {
    for (const shipped of this.implementations.shippedTools()) {
      const schema = shipped.functionSchema;
      const existing = await this.tools.findOneBy({ name: shipped.name, userId: IsNull() });
      const now = new Date();
      if (!existing) {
        try {
          const id = randomUUID();
          await this.tools.insert(
            asRow({
              id,
              name: shipped.name,
              description: shipped.description,
              category: shipped.category,
              functionSchema: schema,
              implementationType: shipped.implementationType,
              implementationConfig: {},
              isPublic: true,
              publicName: shipped.name,
              enabled: true,
              effect: shipped.effect,
              requiresApproval: requiresApprovalByDefault(shipped.effect),
              userId: null,
              useCount: 0,
              version: 1,
              createdAt: now,
              updatedAt: now,
            }),
          );
          await this.versions.insert(
            snapshotRow(
              id,
              1,
              {
                ...shipped,
                category: shipped.category,
                implementationConfig: {},
                requiresApproval: requiresApprovalByDefault(shipped.effect),
              },
              now,
            ),
          );
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      } else if (
        existing.implementationType === shipped.implementationType &&
        existing.userId === null &&
        existing.version === 1 &&
        JSON.stringify(existing.functionSchema) !== JSON.stringify(schema)
      ) {
        await this.tools.update(
          { id: existing.id, version: 1 },
          asRow({ functionSchema: schema, description: shipped.description, effect: shipped.effect, updatedAt: now }),
        );
        // Nobody has edited a seed at version 1: its one version follows the code it ships with.
        await this.versions.update({ toolId: existing.id, version: 1 }, {
          functionSchema: schema,
          description: shipped.description,
          effect: shipped.effect,
        } as QueryDeepPartialEntity<ToolVersionEntity>);
        this.logger.log(`Refreshed the schema of ${shipped.implementationType} tool ${shipped.name}`);
      }
    }
  }

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
    const entities = await this.tools.createQueryBuilder('tool').where('tool.name IN (:...names)', { names }).getMany();
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

  /** By id, or by name: the caller's own tool first, then the public one. */
  private async findVisibleEntity(idOrName: string, principal: Principal): Promise<ToolEntity> {
    const key = byIdOrName(idOrName);
    const entity = 'id' in key ? await this.tools.findOneBy(key) : pickByName(await this.tools.findBy(key), principal);
    if (!entity || !isVisibleTo(entity, principal)) throw DomainError.notFound('Tool', idOrName);
    return entity;
  }

  async create(input: CreateToolDto, principal: Principal): Promise<ToolResponse & { warnings: SchemaWarning[] }> {
    const { fields, warnings } = await this.buildFields(input, principal, null);
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
      });
    } catch (error) {
      if (isDuplicateKey(error)) throw nameTaken(input.name, entity.isPublic);
      throw error;
    }
    return { ...this.toResponse(entity), warnings };
  }

  /** What `create` would store, checked by the same rules, without storing it (dry runs). */
  async preview(input: CreateToolDto, principal: Principal): Promise<ToolPreview> {
    const { fields, warnings } = await this.buildFields(input, principal, null);
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
    const dependants = (await this.dependants()?.workflowsUsing(toStoredTool(entity))) ?? [];
    if (dependants.length > 0 && !force) throw dependantsConflict(`Tool "${entity.name}"`, dependants, principal);
    await this.tools.delete({ id: entity.id });
    await this.dependants()?.disableWorkflows(dependants.map((dependant) => dependant.id));
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
      dependants.push(...((await this.dependants()?.workflowsUsing(toStoredTool(entity))) ?? []));
    const unique = [...new Map(dependants.map((dependant) => [dependant.id, dependant])).values()];
    if (unique.length > 0 && !force) throw dependantsConflict(what, unique, principal);
    await this.tools.delete({ id: In(entities.map((entity) => entity.id)) });
    await this.dependants()?.disableWorkflows(unique.map((dependant) => dependant.id));
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

  async namesTaken(principal: Principal): Promise<TakenNames> {
    const rows = await this.tools.find({
      select: { id: true, name: true, userId: true, isPublic: true },
      where: [{ userId: principal.userId }, { isPublic: true }],
    });
    return {
      own: new Map(rows.filter((row) => row.userId === principal.userId).map((row) => [row.name, row.id])),
      public: new Map(rows.filter((row) => row.isPublic).map((row) => [row.name, row.id])),
    };
  }

  /**
   * Checks a tool as POST (`replacing` null) or as a PUT of the caller's tool `replacing` would, without storing it.
   * A masked secret is never stored as the mask: a replace of the same type keeps the stored value, otherwise the
   * secret is left unset (with the object that holds it when the config is invalid without it) and named.
   */
  async plan(input: CreateToolDto, principal: Principal, replacing: string | null): Promise<PlannedTool> {
    const existing = replacing === null ? null : await this.tools.findOneByOrFail({ id: replacing });
    let config = input.implementation_config ?? {};
    if (existing?.implementationType === input.implementation_type) {
      config = this.implementations.restoreSecrets(input.implementation_type, config, existing.implementationConfig);
    }
    const { value, dropped } = dropMaskedValues(config);
    const plan = async (
      implementationConfig: Record<string, unknown>,
      unsetSecrets: string[],
    ): Promise<PlannedTool> => {
      const { fields } = await this.buildFields(
        { ...input, implementation_config: implementationConfig },
        principal,
        existing,
      );
      return {
        id: existing?.id ?? randomUUID(),
        name: fields.name,
        userId: existing?.userId ?? principal.userId,
        replaces: existing && { version: existing.version },
        unsetSecrets,
        fields,
      };
    };
    try {
      return await plan(value, dropped);
    } catch (error) {
      const holders = [...new Set(dropped.filter((path) => /[.[]/.test(path)).map((path) => path.split(/[.[]/)[0]))];
      if (!(error instanceof DomainError) || holders.length === 0) throw error;
      return plan(Object.fromEntries(Object.entries(value).filter(([key]) => !holders.includes(key))), holders);
    }
  }

  /** Stores checked tools inside the caller's transaction: all of them or, when one fails, none. */
  async storePlanned(manager: EntityManager, planned: readonly PlannedTool[]): Promise<void> {
    for (const tool of planned) {
      const now = new Date();
      try {
        if (tool.replaces) {
          const version = tool.replaces.version + 1;
          const changed = await manager.update(
            ToolEntity,
            { id: tool.id, version: tool.replaces.version },
            asRow({ ...tool.fields, version, updatedAt: now }),
          );
          if (changed.affected === 0) {
            throw DomainError.conflict(`Tool "${tool.name}" was changed by another request; import again`);
          }
          await manager.insert(ToolVersionEntity, snapshotRow(tool.id, version, tool.fields, now));
        } else {
          const row = {
            ...tool.fields,
            id: tool.id,
            userId: tool.userId,
            useCount: 0,
            version: 1,
            createdAt: now,
            updatedAt: now,
          };
          await manager.insert(ToolEntity, asRow(row));
          await manager.insert(ToolVersionEntity, snapshotRow(tool.id, 1, tool.fields, now));
        }
      } catch (error) {
        if (isDuplicateKey(error)) throw nameTaken(tool.name, tool.fields.isPublic);
        throw error;
      }
    }
  }

  /** The workflow module's answer to "who uses this tool"; absent where no workflow module is wired (unit tests). */
  private dependants(): ToolDependants | undefined {
    try {
      return this.moduleRef.get<ToolDependants>(TOOL_DEPENDANTS, { strict: false });
    } catch {
      return undefined;
    }
  }

  /** Every version of a tool, newest first. */
  async listVersions(idOrName: string, principal: Principal): Promise<ToolVersionSummary[]> {
    const tool = await this.findVisibleEntity(idOrName, principal);
    const rows = await this.versions.find({ where: { toolId: tool.id }, order: { version: 'DESC' } });
    return rows.map((row) => ({
      version: row.version,
      name: row.name,
      description: row.description,
      implementation_type: row.implementationType,
      effect: row.effect,
      requires_approval: row.requiresApproval,
      created_at: row.createdAt.toISOString(),
    }));
  }

  async getVersion(idOrName: string, version: number, principal: Principal): Promise<ToolVersionResponse> {
    const tool = await this.findVisibleEntity(idOrName, principal);
    const row = await this.findVersion(tool, version);
    return {
      tool_id: row.toolId,
      version: row.version,
      name: row.name,
      description: row.description,
      category: row.category,
      function_schema: row.functionSchema as unknown as Record<string, unknown>,
      implementation_type: row.implementationType,
      implementation_config: this.implementations.mask(row.implementationType, row.implementationConfig),
      effect: row.effect,
      requires_approval: row.requiresApproval,
      created_at: row.createdAt.toISOString(),
    };
  }

  /** A new version with the schema and implementation of an earlier one; visibility and enabled stay as they are. */
  async rollback(idOrName: string, version: number, principal: Principal) {
    return this.write(idOrName, principal, undefined, async (existing) => {
      const row = await this.findVersion(existing, version);
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

  /**
   * The versions a run pinned, as they were saved, whatever changed since (schema, implementation, enabled);
   * a pin whose tool has been deleted is left out.
   */
  async findPinned(pins: readonly ToolPin[]): Promise<PinnedTool[]> {
    if (pins.length === 0) return [];
    const [rows, current] = await Promise.all([
      this.versions.find({ where: pins.map((pin) => ({ toolId: pin.id, version: pin.version })) }),
      this.tools.find({
        select: { id: true, userId: true, isPublic: true, enabled: true },
        where: { id: In([...new Set(pins.map((pin) => pin.id))]) },
      }),
    ]);
    const byId = new Map(current.map((tool) => [tool.id, tool]));
    return rows.flatMap((row) => {
      const tool = byId.get(row.toolId);
      if (!tool) return [];
      const stored: StoredTool = {
        id: row.toolId,
        name: row.name,
        version: row.version,
        userId: tool.userId,
        isPublic: tool.isPublic,
        enabled: tool.enabled,
        effect: row.effect,
        requiresApproval: row.requiresApproval,
        functionSchema: row.functionSchema,
        implementationType: row.implementationType,
        implementationConfig: row.implementationConfig,
      };
      return [{ tool: stored, category: row.category }];
    });
  }

  private async findVersion(tool: ToolEntity, version: number): Promise<ToolVersionEntity> {
    const row = await this.versions.findOneBy({ toolId: tool.id, version });
    if (!row) throw DomainError.notFound(`Version ${version} of tool`, tool.name);
    return row;
  }

  async incrementUseCount(id: string, by = 1): Promise<void> {
    await this.tools.increment({ id }, 'useCount', by);
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
    const { fields, warnings } = await this.buildFields(candidate, principal, existing);
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
    return { ...this.toResponse(this.tools.merge(existing, updated)), warnings };
  }

  /** A tool without `parameters` takes those its implementation config implies (a workflow tool: the inputs). */
  private async withDerivedParameters(input: CreateToolDto, principal: Principal): Promise<CreateToolDto> {
    const schema = input.function_schema;
    const fn = (schema.function && typeof schema.function === 'object' ? schema.function : schema) as Record<
      string,
      unknown
    >;
    if (fn.parameters !== undefined) return input;
    const derived = await this.implementations.deriveParameters(
      input.implementation_type,
      input.implementation_config ?? {},
      { userId: principal.userId, isAdmin: isAdmin(principal) },
    );
    if (derived === undefined) return input;
    if (!derived.ok) throw DomainError.validation(toConfigFields(derived.problems));
    const { parameters } = derived;
    const filled = schema.function ? { ...schema, function: { ...fn, parameters } } : { ...schema, parameters };
    return { ...input, function_schema: filled };
  }

  private async buildFields(raw: CreateToolDto, principal: Principal, existing: ToolEntity | null) {
    const input = await this.withDerivedParameters(raw, principal);
    const problems: FieldProblem[] = [];
    if (!isAdmin(principal)) {
      const type = input.implementation_type;
      if (this.implementations.adminOnly(type) && existing?.implementationType !== type) {
        problems.push({ field: 'implementation_type', message: `only admins create ${type} tools` });
      }
      if (input.is_public && !existing?.isPublic) {
        problems.push({ field: 'is_public', message: 'only admins make tools public' });
      }
      if (problems.length > 0) throw new DomainError('forbidden', 'This API key may not do this', problems);
    }
    if (RESERVED_TOOL_NAMES.includes(input.name)) {
      problems.push({ field: 'name', message: `"${input.name}" is reserved: LLM nodes add a tool of that name` });
    }
    const normalized = normalizeFunctionSchema(input.function_schema, input.name, input.description);
    if (!normalized.ok) problems.push(...normalized.problems);
    let config = input.implementation_config ?? {};
    if (existing && existing.implementationType === input.implementation_type) {
      config = this.implementations.restoreSecrets(input.implementation_type, config, existing.implementationConfig);
    }
    if (normalized.ok) {
      const configProblems = this.implementations.validateConfig(input.implementation_type, config, {
        name: input.name,
        functionSchema: normalized.schema,
      });
      problems.push(...toConfigFields(configProblems));
    }
    if (problems.length > 0 || !normalized.ok) throw DomainError.validation(problems);
    const defaults = this.implementations.defaults(input.implementation_type, input.name, config);
    const effect = input.effect ?? defaults.effect ?? 'mutating';
    return {
      warnings: normalized.warnings,
      fields: {
        name: input.name,
        description: input.description,
        category: input.category ?? defaults.category ?? 'general',
        functionSchema: normalized.schema,
        implementationType: input.implementation_type,
        implementationConfig: config,
        effect,
        requiresApproval: input.requires_approval ?? requiresApprovalByDefault(effect),
        isPublic: input.is_public ?? false,
        publicName: input.is_public ? input.name : null,
        enabled: input.enabled ?? true,
      },
    };
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
