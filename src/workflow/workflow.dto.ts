import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FieldProblemDto } from '../common/http/api-problem-responses';
import { PageQuery } from '../common/http/pagination';
import { sortDescription } from '../common/http/sort';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { WEATHER_EXAMPLE } from './workflow-example';
import { RUN_BUDGET_PROPERTIES } from '../runs/run-budgets';

export const WORKFLOW_SORT_FIELDS = { name: 'name', created_at: 'createdAt', updated_at: 'updatedAt' } as const;
export const WORKFLOW_DEFAULT_SORT = 'name';

export class ListWorkflowsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Search in name and description' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({
    description: sortDescription(WORKFLOW_SORT_FIELDS, WORKFLOW_DEFAULT_SORT),
    example: '-updated_at',
  })
  @IsOptional()
  @IsString()
  sort?: string;
}

export class WorkflowResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'weather' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ example: WEATHER_EXAMPLE }) definition!: Record<string, unknown>;
  @ApiProperty() is_public!: boolean;
  @ApiProperty({ description: 'A disabled workflow refuses new runs (409); set it with PUT `enabled`' })
  enabled!: boolean;
  @ApiProperty() user_id!: string;
  @ApiProperty({ example: 1 }) version!: number;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
  @ApiPropertyOptional({
    type: [FieldProblemDto],
    description:
      'On a save: what works but should change, e.g. a reference to a deprecated output field ({field, pointer, message, suggestion})',
    example: [
      {
        field: 'definition.nodes[2](end).data.outputs.answer',
        pointer: '/nodes/2/data/outputs/answer',
        message: '{{llm-1.output}}: "output" of a llm node is deprecated; did you mean {{llm-1.text}}?',
        suggestion: '{{llm-1.text}}',
      },
    ],
  })
  warnings?: FieldProblemDto[];
}

export class WorkflowPageResponse {
  @ApiProperty({ type: [WorkflowResponse] }) items!: WorkflowResponse[];
  @ApiProperty() page!: number;
  @ApiProperty() page_size!: number;
  @ApiProperty() total!: number;
}

export const WORKFLOW_BODY_SCHEMA = {
  description:
    'The workflow definition itself (as in examples/*.json), optionally with `is_public` and `enabled`; or `{definition, is_public, enabled}`',
  example: WEATHER_EXAMPLE,
};

/** The run budgets as the body takes them (TypeBox's `Optional` marker is not JSON Schema). */
const RUN_BUDGET_BODY_PROPERTIES = JSON.parse(JSON.stringify(RUN_BUDGET_PROPERTIES)) as Record<string, object>;

export const RUN_BODY_SCHEMA = {
  schema: {
    type: 'object',
    properties: {
      inputs: { type: 'object', example: { question: 'Weather in Berlin?' } },
      ...RUN_BUDGET_BODY_PROPERTIES,
    },
  },
};

export const INLINE_RUN_BODY_SCHEMA = {
  schema: {
    type: 'object',
    required: ['definition'],
    properties: {
      definition: { type: 'object', example: WEATHER_EXAMPLE },
      inputs: { type: 'object', example: { question: 'Weather in Berlin?' } },
      ...RUN_BUDGET_BODY_PROPERTIES,
    },
  },
};
