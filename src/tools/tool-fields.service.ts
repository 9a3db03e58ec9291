import { Inject, Injectable } from '@nestjs/common';
import { isAdmin, type Principal } from '../common/auth/principal';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { RESERVED_TOOL_NAMES } from '../shared/reserved-tool-names';
import { normalizeFunctionSchema, type SchemaWarning } from './function-schema';
import type { CreateToolDto } from './tool.dto';
import type { ToolEntity } from './tool.entity';
import { type ConfigProblem, TOOL_IMPLEMENTATIONS, type ToolImplementations } from './tool-implementations';
import { requiresApprovalByDefault, type ToolFields } from './tool-rows';

const toConfigFields = (problems: readonly ConfigProblem[]): FieldProblem[] =>
  problems.map((problem) => ({
    field: problem.path ? `implementation_config${problem.path.replace(/\//g, '.')}` : 'implementation_config',
    message: problem.message,
  }));

/** Turns a tool body into the fields to store, or the 4xx that says what is wrong with it. */
@Injectable()
export class ToolFieldsService {
  constructor(@Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations) {}

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

  /**
   * The fields a create or write stores, checked by every rule of the API: who may create which type or make
   * a tool public, reserved names, the function schema, the implementation config (masked secrets of the same
   * type restored from `existing`), and the defaults of the type. Throws the 4xx naming each field.
   */
  async build(
    raw: CreateToolDto,
    principal: Principal,
    existing: ToolEntity | null,
  ): Promise<{ fields: ToolFields; warnings: SchemaWarning[] }> {
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
      const configProblems = await this.implementations.validateConfig(input.implementation_type, config, {
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
}
