import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../common/http/pagination';
import { RawJson } from '../common/http/raw-json';
import { APPROVAL_STATUSES } from './run-approval.entity';

/** An approval as listed: `cancelled` is a call still pending in the store whose run ended (was cancelled) first. */
export const LISTED_APPROVAL_STATUSES = [...APPROVAL_STATUSES, 'cancelled'] as const;
export type ListedApprovalStatus = (typeof LISTED_APPROVAL_STATUSES)[number];

export const APPROVAL_DECISIONS = ['approve', 'reject'] as const;
export type ApprovalDecisionName = (typeof APPROVAL_DECISIONS)[number];

/** A tool call of a run that waits for a person's decision. */
export class PendingApprovalDto {
  @ApiProperty({ example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }) id!: string;
  @ApiProperty({ example: 'llm-1' }) node_id!: string;
  @ApiProperty({ example: 'call_abc123' }) call_id!: string;
  @ApiProperty({ example: 'delete_customer', description: 'The tool’s name' }) tool!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { customer_id: 42 },
    description: 'The model’s arguments after validation; credentials masked as ********',
  })
  arguments!: Record<string, unknown>;
  @ApiProperty({ example: '2026-12-01T16:00:00.000Z' }) requested_at!: string;
}

/** An approval of any state, as GET /approvals lists it. */
export class ApprovalResponse extends PendingApprovalDto {
  @ApiProperty({ format: 'uuid' }) run_id!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    description: 'The run’s stored workflow (null: inline)',
  })
  workflow_id!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'refunds',
    description: 'The workflow’s name when the run began',
  })
  workflow_name!: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 3, description: 'The workflow version the run pinned' })
  workflow_version!: number | null;
  @ApiProperty({
    enum: LISTED_APPROVAL_STATUSES,
    description: 'cancelled: nobody decided before the run ended (it was cancelled); it can no longer be decided',
  })
  status!: ListedApprovalStatus;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Arguments given with the approval (they replaced the model’s); credentials masked',
  })
  decided_arguments!: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) comment!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The user who decided' }) decided_by!: string | null;
  @ApiProperty({ nullable: true, type: String }) decided_at!: string | null;
}

export class ApprovalPageResponse {
  @ApiProperty({ type: [ApprovalResponse] }) items!: ApprovalResponse[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) page_size!: number;
  @ApiProperty({ example: 3 }) total!: number;
}

export class ListApprovalsQuery extends PageQuery {
  @ApiPropertyOptional({
    enum: LISTED_APPROVAL_STATUSES,
    description: 'pending: calls still waiting, of runs that have not ended; cancelled: calls whose run ended first',
    example: 'pending',
  })
  @IsOptional()
  @IsIn(LISTED_APPROVAL_STATUSES)
  status?: ListedApprovalStatus;
}

export class DecideApprovalDto {
  @ApiProperty({ enum: APPROVAL_DECISIONS, example: 'approve' })
  @IsIn(APPROVAL_DECISIONS)
  decision!: ApprovalDecisionName;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { customer_id: 42 },
    description:
      'With approve: the arguments the tool runs with instead of the model’s (they replace them, no merge); checked against the tool’s schema. A credential sent back as ******** (as the approval shows it) keeps the model’s value',
  })
  @IsOptional()
  @IsObject()
  @RawJson()
  arguments?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: 'Not this customer: they have open invoices.',
    description: 'With reject: given to the model verbatim',
  })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  comment?: string;
}
