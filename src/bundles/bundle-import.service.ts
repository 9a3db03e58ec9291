import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Principal } from '../common/auth/principal';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { createValidationPipe } from '../common/http/validation.pipe';
import { isRecord } from '../shared/is-record';
import { CreateToolDto } from '../tools/tool.dto';
import type { TakenNames } from '../common/owned-queries';
import { type PlannedTool, ToolImportService } from '../tools/tool-import.service';
import type { WorkflowDefinition } from '../workflow/definition.schema';
import { renameToolsIn } from '../workflow/rename-tools';
import { normalizeWorkflowBody } from '../workflow/workflow-body';
import { type PlannedWorkflow, WorkflowImportService } from '../workflow/workflow-import.service';
import { readBundle, type BundleItems } from './read-bundle';
import { type ConflictPolicy, type ImportItemResult, type ImportQuery, type ImportResult } from './bundle.dto';
import { decideName, type NameDecision } from './decide-name';

const validation = createValidationPipe();

type ItemList = 'tools' | 'workflows';

/**
 * The field problems of a DomainError (or its message) of item `index` of `list`: each field under `list[index]`, each
 * pointer (JSON pointer into the body) under `/list/index`, the item's own when the problem had none.
 * Other errors are not the item's fault.
 */
function problemsOf(error: unknown, list: ItemList, index: number): FieldProblem[] {
  if (!(error instanceof DomainError)) throw error;
  const item = `${list}[${index}]`;
  const pointer = `/${list}/${index}`;
  if (error.problems.length === 0) return [{ field: item, message: error.message, pointer }];
  return error.problems.map((problem) => ({
    ...problem,
    field: `${item}.${problem.field}`,
    pointer: `${pointer}${problem.pointer ?? ''}`,
  }));
}

const writes = (decision: NameDecision): boolean => decision.status !== 'skipped' && decision.status !== 'failed';

const toResult = (index: number, decision: NameDecision, id: string | null): ImportItemResult => ({
  index,
  name: decision.name,
  status: decision.status,
  id,
  ...(decision.originalName !== undefined && { original_name: decision.originalName }),
  ...(decision.reason !== undefined && { reason: decision.reason }),
});

const failed = (result: ImportItemResult, errors: FieldProblem[]): ImportItemResult => ({
  ...result,
  status: 'failed',
  id: null,
  reason: errors.map((problem) => `${problem.field}: ${problem.message}`).join('; '),
  errors,
});

/**
 * POST /import: checks every item of a bundle with the rules of the create endpoints, decides name conflicts by
 * the policy, rewires references between the bundle's items, and stores all of it in one transaction, or nothing.
 */
@Injectable()
export class BundleImportService {
  constructor(
    private readonly tools: ToolImportService,
    private readonly workflows: WorkflowImportService,
    private readonly dataSource: DataSource,
  ) {}

  async import(raw: unknown, query: ImportQuery, principal: Principal): Promise<ImportResult> {
    const policy: ConflictPolicy = query.on_conflict ?? 'skip';
    const dryRun = query.dry_run === true;
    const bundle = readBundle(raw);
    const [toolNames, workflowNames] = await Promise.all([
      this.tools.namesTaken(principal),
      this.workflows.namesTaken(principal),
    ]);

    const workflowDecisions = decideAll(bundle.workflows, workflowNameOf, workflowNames, policy, 'workflow', 128);
    const workflowIds = workflowDecisions.map((decision) => decision.targetId ?? randomUUID());
    const workflowIdFor = new Map<string, string>();
    bundle.workflows.forEach((item, index) => {
      if (workflowDecisions[index].status === 'failed') return;
      if (typeof item.id === 'string') workflowIdFor.set(item.id, workflowIds[index]);
      const name = workflowNameOf(item);
      if (typeof name === 'string') workflowIdFor.set(name, workflowIds[index]);
    });

    const toolDecisions = decideAll(bundle.tools, (item) => item.name, toolNames, policy, 'tool', 64);
    const renamed = new Map<string, string>();
    for (const decision of toolDecisions) {
      if (decision.originalName !== undefined && decision.name !== null)
        renamed.set(decision.originalName, decision.name);
    }
    const problems: FieldProblem[] = [];
    const plannedTools: PlannedTool[] = [];
    const toolResults: ImportItemResult[] = [];
    for (const [index, item] of bundle.tools.entries()) {
      const decision = toolDecisions[index];
      const result = toResult(index, decision, decision.targetId);
      if (!writes(decision)) {
        toolResults.push(result);
        continue;
      }
      try {
        const planned = await this.planTool(item, decision, workflowIdFor, principal);
        plannedTools.push(planned);
        const warnings = planned.unsetSecrets.map(
          (path) => `implementation_config.${path} came masked and is left unset: set it with PUT or PATCH`,
        );
        toolResults.push({
          ...result,
          id: dryRun && decision.targetId === null ? null : planned.id,
          ...(warnings.length > 0 && { warnings }),
        });
      } catch (error) {
        const errors = problemsOf(error, 'tools', index);
        problems.push(...errors);
        toolResults.push(failed(result, errors));
      }
    }

    const providedTools = new Set(plannedTools.map((tool) => tool.name));
    const plannedWorkflows: PlannedWorkflow[] = [];
    const workflowResults: ImportItemResult[] = [];
    for (const [index, item] of bundle.workflows.entries()) {
      const decision = workflowDecisions[index];
      const result = toResult(index, decision, decision.targetId);
      if (!writes(decision)) {
        workflowResults.push(result);
        continue;
      }
      try {
        const definition = withName(item.definition, decision.name, renamed);
        const flags = normalizeWorkflowBody({ definition, is_public: item.is_public, enabled: item.enabled });
        const body = { ...flags, field: 'definition' as const };
        const planned = await this.workflows.plan(body, principal, {
          replacing: decision.status === 'replaced' ? decision.targetId : null,
          newId: workflowIds[index],
          providedTools,
        });
        plannedWorkflows.push(planned);
        const warnings = planned.warnings.map((problem) => `${problem.field}: ${problem.message}`);
        workflowResults.push({
          ...result,
          id: dryRun && decision.targetId === null ? null : planned.id,
          ...(warnings.length > 0 && { warnings }),
        });
      } catch (error) {
        const errors = problemsOf(error, 'workflows', index);
        problems.push(...errors);
        workflowResults.push(failed(result, errors));
      }
    }

    const failures = [...toolResults, ...workflowResults].filter((result) => result.status === 'failed').length;
    const outcome: ImportResult = {
      dry_run: dryRun,
      on_conflict: policy,
      tools: toolResults,
      workflows: workflowResults,
    };
    if (failures > 0) {
      throw new DomainError(
        'validation_failed',
        `${failures} item(s) of the bundle cannot be imported; nothing was imported`,
        problems,
        { ...outcome },
      );
    }
    if (!dryRun) {
      await this.dataSource.transaction(async (manager) => {
        await this.tools.storePlanned(manager, plannedTools, principal);
        await this.workflows.storePlanned(manager, plannedWorkflows, principal);
      });
    }
    return outcome;
  }

  /** One bundle tool as a create (or replace) body under its final name, its workflow_id rewired, checked. */
  private async planTool(
    item: Record<string, unknown>,
    decision: NameDecision,
    workflowIdFor: ReadonlyMap<string, string>,
    principal: Principal,
  ): Promise<PlannedTool> {
    const { id: _sourceId, ...fields } = item;
    const body: Record<string, unknown> = { ...fields };
    if (decision.originalName !== undefined && decision.name !== null) {
      body.name = decision.name;
      const schema = body.function_schema;
      if (isRecord(schema) && isRecord(schema.function)) {
        body.function_schema = { ...schema, function: { ...schema.function, name: decision.name } };
      } else if (isRecord(schema) && typeof schema.name === 'string') {
        body.function_schema = { ...schema, name: decision.name };
      }
    }
    const config = body.implementation_config;
    if (body.implementation_type === 'workflow' && isRecord(config) && typeof config.workflow_id === 'string') {
      const target = workflowIdFor.get(config.workflow_id);
      if (target !== undefined) body.implementation_config = { ...config, workflow_id: target };
    }
    const input = (await validation.transform(body, { type: 'body', metatype: CreateToolDto })) as CreateToolDto;
    return this.tools.plan(input, principal, decision.status === 'replaced' ? decision.targetId : null);
  }
}

function workflowNameOf(item: Record<string, unknown>): unknown {
  return isRecord(item.definition) ? item.definition.name : undefined;
}

/** Each item's name decision, in bundle order, so that later items see the names earlier ones took. */
function decideAll(
  items: BundleItems,
  nameOf: (item: Record<string, unknown>) => unknown,
  taken: TakenNames,
  policy: ConflictPolicy,
  kind: 'tool' | 'workflow',
  maxLength: number,
): NameDecision[] {
  const inBundle = new Set<string>();
  const allNames = new Set(items.map(nameOf).filter((name): name is string => typeof name === 'string'));
  return items.map((item) => {
    const decision = decideName(nameOf(item), item.is_public === true, {
      taken,
      inBundle,
      allNames,
      policy,
      kind,
      maxLength,
    });
    if (decision.name !== null) inBundle.add(decision.name);
    return decision;
  });
}

/** The definition under its final name, naming renamed tools by their new names. */
function withName(definition: unknown, name: string | null, renamed: ReadonlyMap<string, string>): unknown {
  if (!isRecord(definition)) return definition;
  const named = name === null ? definition : { ...definition, name };
  if (renamed.size === 0 || !Array.isArray(named.nodes)) return named;
  try {
    return renameToolsIn(named as unknown as WorkflowDefinition, (tool) => renamed.get(tool) ?? tool);
  } catch {
    // A node whose data has the wrong shape: the check that follows names the problem.
    return named;
  }
}
