import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { ANY_JSON } from '../common/http/any-json';
import { PageQuery } from '../common/http/pagination';
import { sortDescription } from '../common/http/sort';
import { RUN_BUDGET_PROPERTIES, RUN_STOP_REASONS } from './run-budgets';
import { PendingApprovalDto } from './approval.dto';
import { STARTED_AT_DESCRIPTION, ToolCallRepairDto } from '../call-logs/tool-call-log.dto';

export const RUN_SORT_FIELDS = {
  created_at: 'createdAt',
  started_at: 'startedAt',
  finished_at: 'finishedAt',
  status: 'status',
} as const;
export const RUN_DEFAULT_SORT = '-created_at';

export class ListRunsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'waiting'] })
  @IsOptional()
  @IsIn(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'waiting'])
  status?: string;

  @ApiPropertyOptional({ description: 'Only runs of this workflow (id or name)', example: 'weather' })
  @IsOptional()
  @IsString()
  workflow_id?: string;

  @ApiPropertyOptional({ description: 'Only the child runs of this run (workflow tools)', format: 'uuid' })
  @IsOptional()
  @IsUUID()
  parent_run_id?: string;

  @ApiPropertyOptional({ description: 'Only runs created at or after this time', example: '2026-11-30T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  created_after?: string;

  @ApiPropertyOptional({ description: 'Only runs created before this time', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  created_before?: string;

  @ApiPropertyOptional({ description: sortDescription(RUN_SORT_FIELDS, RUN_DEFAULT_SORT), example: '-created_at' })
  @IsOptional()
  @IsString()
  sort?: string;
}

export class WaitQuery {
  @ApiPropertyOptional({ type: Boolean, description: 'Block until the run ends (up to RUN_WAIT_TIMEOUT_MS)' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => value === 'true' || value === '1' || value === true)
  wait?: boolean;
}

export class UsageDto {
  @ApiProperty({ example: 120 }) prompt_tokens!: number;
  @ApiProperty({ example: 40 }) completion_tokens!: number;
  @ApiProperty({ example: 160 }) total_tokens!: number;
  @ApiProperty({ example: 2 }) model_calls!: number;
}

export class CostDto {
  @ApiProperty({ example: 0.00425, description: "In the currency's main unit (dollars, not cents)" }) amount!: number;
  @ApiProperty({ example: 'USD', description: 'ISO 4217' }) currency!: string;
}

const { max_total_tokens, max_tool_calls, max_cost, timeout_ms } = RUN_BUDGET_PROPERTIES;

export class RunBudgetsDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: max_total_tokens.minimum,
    description: max_total_tokens.description,
  })
  max_total_tokens?: number;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: max_tool_calls.minimum,
    maximum: max_tool_calls.maximum,
    description: max_tool_calls.description,
  })
  max_tool_calls?: number;
  @ApiPropertyOptional({
    type: 'number',
    // The document is OpenAPI 3.1, where exclusiveMinimum is a number; Nest's types still say 3.0's boolean.
    ...({ exclusiveMinimum: max_cost.exclusiveMinimum } as object),
    maximum: max_cost.maximum,
    description: max_cost.description,
  })
  max_cost?: number;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: timeout_ms.minimum,
    maximum: timeout_ms.maximum,
    description: timeout_ms.description,
  })
  timeout_ms?: number;
}

export class NodeRunToolCallDto {
  @ApiProperty({ nullable: true, type: String }) call_id!: string | null;
  @ApiProperty() tool_name!: string;
  @ApiProperty() status!: string;
  @ApiProperty() input!: string;
  @ApiProperty({
    ...ANY_JSON,
    description:
      "The arguments the tool ran with (masked): a person's edited ones when an approval replaced the model's",
  })
  arguments!: unknown;
  @ApiPropertyOptional({
    ...ANY_JSON,
    description: "The model's arguments (masked), only when a person approved the call with different ones",
  })
  model_arguments?: unknown;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'With model_arguments: the name of the API key that edited them',
  })
  edited_by?: string | null;
  @ApiPropertyOptional({ type: String, description: 'With model_arguments: when they were edited' })
  edited_at?: string;
  @ApiProperty({ nullable: true, type: String }) output!: string | null;
  @ApiProperty({ nullable: true, type: String }) error_message!: string | null;
  @ApiProperty() duration_ms!: number;
  @ApiProperty({ description: STARTED_AT_DESCRIPTION }) started_at!: string;
  @ApiPropertyOptional({
    type: ToolCallRepairDto,
    description: "Present when the call was repaired from a weak model's answer (docs/providers.md, Repaired calls)",
  })
  repair?: ToolCallRepairDto;
}

export class NodeRunDto {
  @ApiProperty({ example: 'llm-1' }) node_id!: string;
  @ApiProperty({ example: 'llm' }) node_type!: string;
  @ApiProperty({ enum: ['running', 'succeeded', 'failed', 'skipped', 'cancelled'] }) status!: string;
  @ApiProperty({ ...ANY_JSON, description: 'What the node produced (any JSON); null while running' }) output!: unknown;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
  @ApiProperty() started_at!: string;
  @ApiProperty({ nullable: true, type: String }) finished_at!: string | null;
  @ApiProperty({ nullable: true, type: Number }) duration_ms!: number | null;
  @ApiProperty({ type: [NodeRunToolCallDto] }) tool_calls!: NodeRunToolCallDto[];
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'array', items: { type: 'string' } },
    description: 'LLM nodes: the tool names offered on each model call, in call order',
    example: [
      ['get_weather', 'search_tools'],
      ['get_weather', 'get_time', 'search_tools'],
    ],
  })
  offered_tools?: string[][];
}

export class RunResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ nullable: true, type: String }) workflow_id!: string | null;
  @ApiProperty({ nullable: true, type: Number }) workflow_version!: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The name of the workflow as the run executes it (an inline run has one too)',
    example: 'weather-agent',
  })
  workflow_name!: string | null;
  @ApiProperty({ nullable: true, type: String }) parent_run_id!: string | null;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'waiting'] }) status!: string;
  @ApiProperty({ example: { city: 'Berlin' } }) inputs!: Record<string, unknown>;
  @ApiProperty({ nullable: true, example: { answer: 'It is 21 °C and sunny in Berlin.' } })
  outputs!: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String, example: null }) error!: string | null;
  @ApiProperty({ type: UsageDto }) usage!: UsageDto;
  @ApiProperty({
    type: CostDto,
    nullable: true,
    description:
      "What the run's model calls cost (its workflow-tool runs included), priced per provider and model (GET /providers); " +
      'null when a model has no known price, never 0 for an unknown one',
  })
  cost!: CostDto | null;
  @ApiProperty({
    enum: RUN_STOP_REASONS,
    nullable: true,
    description:
      'Why the run ended (null until it has): completed, error (a node failed), cancelled, interrupted, or the run budget that ended it',
  })
  stop_reason!: string | null;
  @ApiProperty({
    type: RunBudgetsDto,
    nullable: true,
    description: 'The run budgets in force (request body over definition); null when none',
  })
  budgets!: RunBudgetsDto | null;
  @ApiProperty() user_id!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) started_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) finished_at!: string | null;
  @ApiProperty({ nullable: true, type: Number }) duration_ms!: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    nullable: true,
    description:
      'The version of every tool the run may use, pinned when it was created: edits made during the run do not ' +
      'change it. null on runs created before versions were pinned',
    example: { get_weather: 3, calculator: 1 },
  })
  tool_versions!: Record<string, number> | null;
  @ApiPropertyOptional({ type: [NodeRunDto], description: 'On GET /runs/:id and ?wait=true' })
  nodes?: NodeRunDto[];
  @ApiPropertyOptional({
    type: [PendingApprovalDto],
    description: 'On GET /runs/:id and ?wait=true: tool calls waiting for a decision (status `waiting`)',
  })
  pending_approvals?: PendingApprovalDto[];
}

export class RunPageResponse {
  @ApiProperty({ type: [RunResponse] }) items!: RunResponse[];
  @ApiProperty() page!: number;
  @ApiProperty() page_size!: number;
  @ApiProperty() total!: number;
}
