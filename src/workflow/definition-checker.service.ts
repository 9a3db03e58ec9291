import { Inject, Injectable } from '@nestjs/common';
import type { ValidateFunction } from 'ajv';
import type AjvCore from 'ajv/dist/core';
import type { Principal } from '../common/auth/principal';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { createAjv } from '../json-schema/create-ajv';
import { detectSchemaDraft, type SchemaDraft } from '../json-schema/schema-draft';
import { ProviderRegistry } from '../llm/provider-registry';
import { RegistryService } from '../registry/registry.service';
import { isRecord } from '../shared/is-record';
import { LruCache } from '../shared/lru-cache';
import type { ToolDefinition } from '../shared/tool-definition';
import type { WorkflowDefinition } from './definition.schema';
import { WorkflowRunError } from './execution/run-context';
import type { ToolUse } from './nodes/node-handler';
import { analyzeDefinition, type DefinitionAnalysis } from './validate-definition';

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

const VALIDATOR_CACHE_SIZE = 500;

export interface CheckOptions {
  /** `id@version` of a stored definition: its structural analysis is cached. */
  version?: string;
  /** Tool names that count as existing and enabled: those an import stores in the same transaction. */
  providedTools?: ReadonlySet<string>;
  /**
   * What a provider or model this service lacks makes of the definition: refused (saving, running), or a warning
   * (a bundle import keeps the workflow; running it here is refused with the same message until configured).
   */
  unconfigured?: 'refuse' | 'warn';
}

/** The checks every definition passes on save and on run, and a run's inputs against its definition. */
@Injectable()
export class DefinitionChecker {
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
    private readonly registry: RegistryService,
    private readonly providers: ProviderRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Everything that makes a definition runnable for this caller: structure, references, tools that
   * exist and that the caller may use, providers and models that are configured. 400 on any problem.
   */
  async check(
    input: unknown,
    principal: Principal,
    field = 'definition',
    options: CheckOptions = {},
  ): Promise<CheckedDefinition> {
    const { version, providedTools = new Set<string>(), unconfigured = 'refuse' } = options;
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
    if (unconfigured === 'refuse') problems.push(...analysis.unconfigured.map(inBody));
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
    if (unconfigured === 'warn') {
      warnings.push(
        ...analysis.unconfigured.map((problem) => {
          const found = inBody(problem);
          return { ...found, message: `${found.message}; its runs are refused here until this is configured` };
        }),
      );
    }
    return { definition, order: analysis.order, tools: resolvedTools, toolUses: analysis.toolsByNode, warnings };
  }

  /**
   * The node order of a stored run's definition, checked when the run was created; a run executed again
   * (resumed) meets it here once more, and fails with the problems if the service's configuration changed since.
   */
  executionPlan(definition: unknown, version?: string): CheckedDefinition {
    const analysis = this.analyze(definition, version);
    const problems = [...analysis.problems, ...analysis.unconfigured];
    if (problems.length > 0) {
      const text = problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ');
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
}
