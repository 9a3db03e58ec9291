import { selectRows } from '../common/plain-sql';
import { AuditService } from '../audit/audit.service';
import type { ToolDefinition } from '../shared/tool-definition';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { ValidateFunction } from 'ajv';
import type AjvCore from 'ajv/dist/core';
import { randomUUID } from 'node:crypto';
import { type EntityManager, In, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAdmin, type Principal } from '../common/auth/principal';
import { dependantsConflict, type Dependant } from '../common/dependants';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import type { Page } from '../common/http/pagination';
import { parseSort, toBuilderOrder } from '../common/http/sort';
import { assertVersionMatches, type VersionPrecondition } from '../common/http/etag';
import {
  assertCanChange,
  byIdOrName,
  isDuplicateKey,
  isVisibleTo,
  namesTaken,
  pickByName,
  type TakenNames,
  whereNameOrDescriptionContains,
  whereVisibleTo,
} from '../common/owned-queries';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { createAjv } from '../json-schema/create-ajv';
import { LruCache } from '../shared/lru-cache';
import { detectSchemaDraft, type SchemaDraft } from '../json-schema/schema-draft';
import { ProviderRegistry } from '../llm/provider-registry';
import { RegistryService } from '../registry/registry.service';
import type { StoredTool } from '../tools/stored-tool';
import type { ToolDependants } from '../tools/tool-dependants';
import { ToolsService } from '../tools/tools.service';
import { NODE_HANDLERS } from './nodes/node-handlers';
import type { HandlerNode, NodeHandler, ToolUse } from './nodes/node-handler';
import type { WorkflowLookup } from '../runs/workflow-lookup';
import type { WorkflowDefinition } from './definition.schema';
import { WorkflowRunError } from './execution/run-context';
import type { WorkflowBody } from './workflow-body';
import { analyzeDefinition, type DefinitionAnalysis } from './validate-definition';
import {
  type ListWorkflowsQuery,
  WORKFLOW_DEFAULT_SORT,
  WORKFLOW_SORT_FIELDS,
  type WorkflowResponse,
} from './workflow.dto';
import { WorkflowEntity } from './workflow.entity';
import { WorkflowVersionEntity } from './workflow-version.entity';
import { recordWorkflowVersion } from './workflow-version-row';
import { isRecord } from '../shared/is-record';

export interface CheckedDefinition {
  definition: WorkflowDefinition;
  order: string[];
  /** The tools each node uses, as the check resolved them (not for a stored run's execution plan). */
  tools?: ReadonlyMap<string, readonly ToolDefinition[]>;
  /** The tools each node names and the selectors it has, by node id. */
  toolUses: ReadonlyMap<string, ToolUse>;
  /** What works but should change (a deprecated output field read by a reference). */
  warnings?: FieldProblem[];
}

/** A workflow an import has checked and stores in its transaction: a new one, or the next version of the caller's. */
export interface PlannedWorkflow {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  /** The caller's workflow this one replaces; null: a new workflow. */
  readonly replaces: { readonly version: number } | null;
  readonly definition: WorkflowDefinition;
  readonly isPublic: boolean;
  readonly enabled: boolean;
  /** The user whose import makes the new version. */
  readonly savedBy: string;
}

const VALIDATOR_CACHE_SIZE = 500;

/** Stored workflows and the checks every definition passes on save and on run. */
@Injectable()
export class WorkflowsService implements WorkflowLookup, ToolDependants {
  private readonly ajvByDraft: Record<SchemaDraft, AjvCore> = {
    'draft-07': createAjv('draft-07', { useDefaults: true }),
    '2020-12': createAjv('2020-12', { useDefaults: true }),
  };
  /** Compiled inputs schemas; an evicted one leaves its Ajv instance too, or the instance would keep it. */
  private readonly inputValidators = new LruCache<string, { validate: ValidateFunction; ajv: AjvCore; schema: object }>(
    VALIDATOR_CACHE_SIZE,
    (_key, entry) => entry.ajv.removeSchema(entry.schema),
  );
  /** Structural analysis of stored definitions by `id@version`: a version never changes, so it is analysed once. */
  private readonly analyses = new LruCache<string, DefinitionAnalysis>(VALIDATOR_CACHE_SIZE);

  constructor(
    @InjectRepository(WorkflowEntity) private readonly workflows: Repository<WorkflowEntity>,
    private readonly registry: RegistryService,
    private readonly tools: ToolsService,
    private readonly providers: ProviderRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {}

  /**
   * Everything that makes a definition runnable for this caller: structure, references, tools that
   * exist and that the caller may use, providers and models that are configured. 400 on any problem.
   */
  async check(
    input: unknown,
    principal: Principal,
    field = 'definition',
    version?: string,
    /** Tool names that count as existing and enabled: those an import stores in the same transaction. */
    providedTools: ReadonlySet<string> = new Set(),
  ): Promise<CheckedDefinition> {
    const analysis = this.analyze(input, version);
    // Pointers are into the body: the definition is the body itself, or its `definition` field.
    const pointerBase = field === 'body' ? '' : `/${field}`;
    const inBody = (problem: FieldProblem): FieldProblem => ({
      ...problem,
      field: problem.field.startsWith('definition')
        ? problem.field.replace(/^definition/, field)
        : `${field}.${problem.field}`,
      ...(problem.pointer === undefined ? {} : { pointer: `${pointerBase}${problem.pointer}` }),
    });
    const problems: FieldProblem[] = analysis.problems.map(inBody);
    if (problems.length > 0) throw DomainError.validation(problems, 'The workflow definition is invalid');
    const definition = input as WorkflowDefinition;
    const resolvedTools = new Map<string, readonly ToolDefinition[]>();
    for (const [index, node] of definition.nodes.entries()) {
      const tools = analysis.toolsByNode.get(node.id);
      if (!tools) continue;
      const resolved = await this.registry.resolve(tools.names, principal, { checkUsable: true });
      resolvedTools.set(node.id, resolved.definitions);
      const toolsField = `${field}.nodes[${index}](${node.id}).data.${tools.field}`;
      for (const name of resolved.missing.filter((missing) => !providedTools.has(missing))) {
        problems.push({ field: toolsField, message: `tool "${name}" does not exist or this API key may not use it` });
      }
      for (const name of resolved.disabled.filter((disabled) => !providedTools.has(disabled))) {
        problems.push({ field: toolsField, message: `tool "${name}" is disabled` });
      }
      // A workflow that runs itself through a tool is the one being saved: its stored state does not count.
      for (const unusable of resolved.unusable.filter((use) => use.dependency !== definition.name)) {
        problems.push({ field: toolsField, message: `tool "${unusable.name}" ${unusable.reason}` });
      }
    }
    if (problems.length > 0) throw DomainError.validation(problems, 'The workflow definition is invalid');
    const warnings = analysis.warnings.map(inBody);
    return { definition, order: analysis.order, tools: resolvedTools, toolUses: analysis.toolsByNode, warnings };
  }

  /**
   * The node order of a stored run's definition, checked when the run was created; a run executed again
   * (resumed) meets it here once more, and fails with the problems if the service's configuration changed since.
   */
  executionPlan(definition: unknown, version?: string): CheckedDefinition {
    const analysis = this.analyze(definition, version);
    if (analysis.problems.length > 0) {
      const text = analysis.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
      throw new WorkflowRunError(`the stored definition no longer runs here: ${text}`);
    }
    return { definition: definition as WorkflowDefinition, order: analysis.order, toolUses: analysis.toolsByNode };
  }

  /** Run inputs against the definition's `inputs` schema (defaults filled in). */
  checkInputs(definition: WorkflowDefinition, inputs: unknown, key: string): Record<string, unknown> {
    if (inputs !== undefined && !isRecord(inputs)) {
      throw DomainError.validation([{ field: 'inputs', message: 'must be an object' }]);
    }
    const value = structuredClone(inputs ?? {});
    if (!definition.inputs) return value;
    const cacheKey = `${key}:${JSON.stringify(definition.inputs)}`;
    let entry = this.inputValidators.get(cacheKey);
    if (!entry) {
      // The save-time check refused an unsupported `$schema`, so a stored definition always has a draft.
      const detected = detectSchemaDraft(definition.inputs);
      const ajv = this.ajvByDraft[detected.ok ? detected.draft : '2020-12'];
      entry = { validate: ajv.compile(definition.inputs), ajv, schema: definition.inputs };
      this.inputValidators.set(cacheKey, entry);
    }
    const { validate } = entry;
    if (!validate(value)) {
      throw DomainError.validation(
        (validate.errors ?? []).map((error) => {
          const missing = (error.params as { missingProperty?: string }).missingProperty;
          const path = `${error.instancePath.replace(/\//g, '.')}${missing ? `.${missing}` : ''}`;
          return { field: `inputs${path}`, message: error.message ?? 'is invalid' };
        }),
        'The run inputs do not match the workflow inputs schema',
      );
    }
    return value;
  }

  private analyze(input: unknown, version: string | undefined): DefinitionAnalysis {
    const cached = version === undefined ? undefined : this.analyses.get(version);
    if (cached) return cached;
    const analysis = analyzeDefinition(input, {
      providers: this.providers,
      defaultProvider: this.config.defaultProvider,
    });
    if (version !== undefined && analysis.problems.length === 0) this.analyses.set(version, analysis);
    return analysis;
  }

  async list(query: ListWorkflowsQuery, principal: Principal): Promise<Page<WorkflowResponse>> {
    const builder = this.workflows.createQueryBuilder('workflow');
    whereVisibleTo(builder, principal);
    whereNameOrDescriptionContains(builder, query.q);
    const [entities, total] = await builder
      .orderBy(toBuilderOrder('workflow', parseSort(query.sort, WORKFLOW_SORT_FIELDS, WORKFLOW_DEFAULT_SORT)))
      .skip((query.page - 1) * query.page_size)
      .take(query.page_size)
      .getManyAndCount();
    return { items: entities.map(toWorkflowResponse), page: query.page, page_size: query.page_size, total };
  }

  async get(idOrName: string, principal: Principal): Promise<WorkflowResponse> {
    return toWorkflowResponse(await this.findVisible(idOrName, principal));
  }

  /** WorkflowLookup (runs/ filters by workflow name with it). */
  async idOf(idOrName: string, principal: Principal): Promise<string | null> {
    const entity = await this.findByIdOrName(idOrName, principal);
    return entity && isVisibleTo(entity, principal) ? entity.id : null;
  }

  /** By id, or by name: the caller's own workflow first, then the public one. */
  async findVisible(idOrName: string, principal: Principal): Promise<WorkflowEntity> {
    const entity = await this.findByIdOrName(idOrName, principal);
    if (!entity || !isVisibleTo(entity, principal)) {
      throw DomainError.notFound('Workflow', idOrName);
    }
    return entity;
  }

  private async findByIdOrName(idOrName: string, principal: Principal): Promise<WorkflowEntity | null | undefined> {
    const key = byIdOrName(idOrName);
    const rows = await selectRows(this.workflows.manager, WorkflowEntity, key);
    return 'id' in key ? (rows[0] ?? null) : pickByName(rows, principal);
  }

  async create(body: WorkflowBody, principal: Principal): Promise<WorkflowResponse> {
    const { definition, isPublic, warnings } = await this.readBody(body, principal);
    const now = new Date();
    const entity = this.workflows.create({
      id: randomUUID(),
      name: definition.name,
      description: definition.description ?? '',
      definition,
      isPublic,
      publicName: isPublic ? definition.name : null,
      enabled: body.enabled ?? true,
      userId: principal.userId,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await this.workflows.manager.transaction(async (manager) => {
        await manager.insert(WorkflowEntity, entity as QueryDeepPartialEntity<WorkflowEntity>);
        await recordWorkflowVersion(manager, entity, principal.userId, now);
        await this.audit.record(manager, principal, {
          action: 'create',
          type: 'workflow',
          id: entity.id,
          name: entity.name,
          after: 1,
        });
      });
    } catch (error) {
      if (isDuplicateKey(error)) throw workflowNameTaken(definition.name, isPublic);
      throw error;
    }
    return { ...toWorkflowResponse(entity), warnings };
  }

  async replace(
    idOrName: string,
    body: WorkflowBody,
    principal: Principal,
    ifMatch?: VersionPrecondition,
  ): Promise<WorkflowResponse> {
    const existing = await this.findVisible(idOrName, principal);
    assertCanChange(existing, principal, 'workflow');
    assertVersionMatches(ifMatch, existing.version, `Workflow "${existing.name}"`);
    const { definition, isPublic, warnings } = await this.readBody(body, principal, existing.isPublic);
    const changes = {
      name: definition.name,
      description: definition.description ?? '',
      definition,
      isPublic,
      publicName: isPublic ? definition.name : null,
      enabled: body.enabled ?? existing.enabled,
      version: existing.version + 1,
      updatedAt: new Date(),
    };
    try {
      await this.workflows.manager.transaction(async (manager) => {
        const result = await manager.update(
          WorkflowEntity,
          { id: existing.id, version: existing.version },
          changes as QueryDeepPartialEntity<WorkflowEntity>,
        );
        if (result.affected === 0) throw DomainError.conflict('The workflow was changed by another request; retry');
        await recordWorkflowVersion(manager, { ...changes, id: existing.id }, principal.userId, changes.updatedAt);
        await this.audit.record(manager, principal, {
          action: 'update',
          type: 'workflow',
          id: existing.id,
          name: changes.name,
          before: existing.version,
          after: changes.version,
        });
      });
    } catch (error) {
      if (isDuplicateKey(error)) throw workflowNameTaken(definition.name, isPublic);
      throw error;
    }
    return { ...toWorkflowResponse(this.workflows.merge(existing, changes)), warnings };
  }

  /** Workflows to export: the named ones (ids or names; 404 for one the caller cannot see), or every visible one. */
  async exportable(idsOrNames: readonly string[] | null, principal: Principal): Promise<WorkflowResponse[]> {
    if (idsOrNames !== null) {
      const entities = [];
      for (const idOrName of idsOrNames) entities.push(await this.findVisible(idOrName, principal));
      return [...new Map(entities.map((entity) => [entity.id, toWorkflowResponse(entity)])).values()];
    }
    const builder = this.workflows.createQueryBuilder('workflow');
    whereVisibleTo(builder, principal);
    const entities = await builder.orderBy('workflow.name', 'ASC').addOrderBy('workflow.id', 'ASC').getMany();
    return entities.map(toWorkflowResponse);
  }

  /** Names an import may clash with: the caller's own workflows and the public ones, each name to its id. */
  namesTaken(principal: Principal): Promise<TakenNames> {
    return namesTaken(this.workflows, principal);
  }

  /**
   * Checks a workflow as POST (`replacing` null: a new one with id `newId`) or as a PUT of the caller's workflow
   * `replacing` would, without storing it; `providedTools` are tools the same import stores.
   */
  async plan(
    body: WorkflowBody,
    principal: Principal,
    target: { replacing: string | null; newId: string; providedTools: ReadonlySet<string> },
  ): Promise<PlannedWorkflow> {
    const { replacing, newId, providedTools } = target;
    const existing = replacing === null ? null : await this.workflows.findOneByOrFail({ id: replacing });
    const isPublic = body.isPublic ?? existing?.isPublic ?? false;
    if (isPublic && !existing?.isPublic && !isAdmin(principal)) {
      throw DomainError.validation([{ field: 'is_public', message: 'only admins make workflows public' }]);
    }
    const { definition } = await this.check(body.definition, principal, body.field, undefined, providedTools);
    return {
      id: existing?.id ?? newId,
      name: definition.name,
      userId: existing?.userId ?? principal.userId,
      replaces: existing && { version: existing.version },
      definition,
      isPublic,
      enabled: body.enabled ?? existing?.enabled ?? true,
      savedBy: principal.userId,
    };
  }

  /** Stores checked workflows inside the caller's transaction: all of them or, when one fails, none. */
  async storePlanned(manager: EntityManager, planned: readonly PlannedWorkflow[]): Promise<void> {
    for (const workflow of planned) {
      const now = new Date();
      const fields = {
        name: workflow.name,
        description: workflow.definition.description ?? '',
        definition: workflow.definition,
        isPublic: workflow.isPublic,
        publicName: workflow.isPublic ? workflow.name : null,
        enabled: workflow.enabled,
        updatedAt: now,
      };
      try {
        const version = workflow.replaces ? workflow.replaces.version + 1 : 1;
        if (workflow.replaces) {
          const changed = await manager.update(
            WorkflowEntity,
            { id: workflow.id, version: workflow.replaces.version },
            { ...fields, version } as QueryDeepPartialEntity<WorkflowEntity>,
          );
          if (changed.affected === 0) {
            throw DomainError.conflict(`Workflow "${workflow.name}" was changed by another request; import again`);
          }
        } else {
          const row = { ...fields, id: workflow.id, userId: workflow.userId, version, createdAt: now };
          await manager.insert(WorkflowEntity, row as QueryDeepPartialEntity<WorkflowEntity>);
        }
        await recordWorkflowVersion(manager, { ...fields, id: workflow.id, version }, workflow.savedBy, now);
      } catch (error) {
        if (isDuplicateKey(error)) throw workflowNameTaken(workflow.name, workflow.isPublic);
        throw error;
      }
    }
  }

  /** Refuses (409) while workflow tools run this workflow, unless `force`: then those tools are disabled. */
  async remove(idOrName: string, principal: Principal, force = false): Promise<void> {
    const existing = await this.findVisible(idOrName, principal);
    assertCanChange(existing, principal, 'workflow');
    const dependants = await this.toolsRunning(existing);
    if (dependants.length > 0 && !force) {
      throw dependantsConflict(`Workflow "${existing.name}"`, dependants, principal);
    }
    await this.workflows.manager.transaction(async (manager) => {
      await manager.delete(WorkflowVersionEntity, { workflowId: existing.id });
      await manager.delete(WorkflowEntity, { id: existing.id });
      await this.audit.record(manager, principal, {
        action: 'delete',
        type: 'workflow',
        id: existing.id,
        name: existing.name,
        before: existing.version,
      });
    });
    await this.tools.disable(dependants.map((dependant) => dependant.id));
  }

  /** ToolDependants: turns workflows off (what used a tool deleted with `?force=true`); their definitions stay. */
  async disableWorkflows(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.workflows.update({ id: In([...ids]) }, { enabled: false, updatedAt: new Date() });
  }

  /** A disabled workflow refuses new runs, started through the API or as a workflow tool. */
  assertEnabled(workflow: WorkflowEntity): void {
    if (!workflow.enabled) {
      throw DomainError.conflict(
        `Workflow "${workflow.name}" is disabled; enable it (PUT with "enabled": true) to run it`,
        'enabled',
      );
    }
  }

  /** ToolDependants: stored workflows whose nodes name the tool and, for their owner, mean that tool by it. */
  async workflowsUsing(tool: StoredTool): Promise<Dependant[]> {
    const candidates = (await this.workflows.find()).filter((workflow) =>
      toolNamesIn(workflow.definition).includes(tool.name),
    );
    const dependants: Dependant[] = [];
    for (const workflow of candidates) {
      const [meant] = await this.tools.findUsableByNames([tool.name], ownerOf(workflow));
      if (meant?.id === tool.id) dependants.push({ kind: 'workflow', ...ownedFields(workflow) });
    }
    return dependants;
  }

  /** Enabled workflow tools whose workflow_id means this workflow (its id, or its name as the tool's owner reads it). */
  private async toolsRunning(workflow: WorkflowEntity): Promise<Dependant[]> {
    const dependants: Dependant[] = [];
    for (const tool of await this.tools.findByImplementationType('workflow')) {
      const target = tool.implementationConfig.workflow_id;
      if (!tool.enabled || (target !== workflow.id && target !== workflow.name)) continue;
      const meant = target === workflow.id ? workflow : await this.findByIdOrName(target, ownerOf(tool));
      if (meant?.id === workflow.id) {
        dependants.push({ kind: 'tool', id: tool.id, name: tool.name, userId: tool.userId, isPublic: tool.isPublic });
      }
    }
    return dependants;
  }

  private async readBody(body: WorkflowBody, principal: Principal, wasPublic = false) {
    const isPublic = body.isPublic ?? wasPublic;
    if (isPublic && !wasPublic && !isAdmin(principal)) throw DomainError.forbidden('Only admins make workflows public');
    const { definition, warnings = [] } = await this.check(body.definition, principal, body.field);
    return { definition, isPublic, warnings };
  }
}

/** Who a stored row acts for when it names another: its owner, with a user's visibility. */
const ownerOf = (row: { userId: string | null }): Principal => ({ userId: row.userId ?? '', role: 'user', keyId: '' });

const ownedFields = (workflow: WorkflowEntity) => ({
  id: workflow.id,
  name: workflow.name,
  userId: workflow.userId,
  isPublic: workflow.isPublic,
});

/** Every tool name a definition's nodes use, those nested in map and loop nodes too. */
const toolNamesIn = (definition: { nodes?: readonly HandlerNode[] }): string[] =>
  (definition.nodes ?? []).flatMap((node) => {
    const handler = (NODE_HANDLERS as Record<string, NodeHandler | undefined>)[node.type];
    const nested = handler?.nested?.(node.data ?? {});
    return [...(handler?.toolsUsed?.(node.data ?? {})?.names ?? []), ...(nested ? toolNamesIn(nested) : [])];
  });

const workflowNameTaken = (name: string, isPublic: boolean): DomainError =>
  DomainError.conflict(
    isPublic
      ? `A workflow named "${name}" already exists among your workflows or the public ones`
      : `You already have a workflow named "${name}"`,
    'name',
  );

export const toWorkflowResponse = (entity: WorkflowEntity): WorkflowResponse => ({
  id: entity.id,
  name: entity.name,
  description: entity.description,
  definition: entity.definition,
  is_public: entity.isPublic,
  enabled: entity.enabled,
  user_id: entity.userId,
  version: entity.version,
  created_at: entity.createdAt.toISOString(),
  updated_at: entity.updatedAt.toISOString(),
});
