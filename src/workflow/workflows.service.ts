import { selectRows } from '../common/plain-sql';
import { AuditService } from '../audit/audit.service';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { In, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAdmin, type Principal } from '../common/auth/principal';
import { dependantsConflict, type Dependant } from '../common/dependants';
import { DomainError } from '../common/errors/domain-error';
import type { Page } from '../common/http/pagination';
import { parseSort, toBuilderOrder } from '../common/http/sort';
import { assertVersionMatches, type VersionPrecondition } from '../common/http/etag';
import {
  assertCanChange,
  byIdOrName,
  isDuplicateKey,
  isVisibleTo,
  pickByName,
  whereNameOrDescriptionContains,
  whereVisibleTo,
} from '../common/owned-queries';
import type { StoredTool } from '../tools/stored-tool';
import type { ToolDependants } from '../tools/tool-dependants';
import { ToolsService } from '../tools/tools.service';
import { NODE_HANDLERS } from './nodes/node-handlers';
import type { HandlerNode, NodeHandler } from './nodes/node-handler';
import type { WorkflowLookup } from '../runs/workflow-lookup';
import { DefinitionChecker } from './definition-checker.service';
import type { WorkflowBody } from './workflow-body';
import {
  type ListWorkflowsQuery,
  WORKFLOW_DEFAULT_SORT,
  WORKFLOW_SORT_FIELDS,
  type WorkflowResponse,
} from './workflow.dto';
import { WorkflowEntity } from './workflow.entity';
import { toWorkflowResponse, workflowNameTaken } from './workflow-rows';
import { WorkflowVersionEntity } from './workflow-version.entity';
import { recordWorkflowVersion } from './workflow-version-row';

/** Stored workflows: reads, saves (each a new version), deletes, and what depends on them. */
@Injectable()
export class WorkflowsService implements WorkflowLookup, ToolDependants {
  constructor(
    @InjectRepository(WorkflowEntity) private readonly workflows: Repository<WorkflowEntity>,
    private readonly checker: DefinitionChecker,
    private readonly tools: ToolsService,
    private readonly audit: AuditService,
  ) {}

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

  /** WorkflowLookup (GET /usage names the workflows it groups by). */
  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.workflows.find({ select: { id: true, name: true }, where: { id: In([...ids]) } });
    return new Map(rows.map((row) => [row.id, row.name]));
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
    const { definition, warnings = [] } = await this.checker.check(body.definition, principal, body.field);
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
