import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Length } from 'class-validator';
import { CostDto } from '../runs/run.dto';
import type { UsageGrouping } from '../runs/run-usage.service';

export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['day', 'workflow', 'model'];

export class UsageQuery {
  @ApiPropertyOptional({
    description: 'Start (inclusive, ISO 8601); default: 30 days before `to`',
    example: '2026-11-01',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ description: 'End (exclusive, ISO 8601); default: now', example: '2026-12-01' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({ enum: USAGE_GROUPINGS, default: 'day', description: 'UTC day, stored workflow, or model' })
  @IsOptional()
  @IsIn(USAGE_GROUPINGS)
  group_by?: UsageGrouping;

  @ApiPropertyOptional({ description: 'Whose usage (admins only; default: the caller’s)', example: 'team-billing' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  user_id?: string;
}

export class UsageFiguresDto {
  @ApiProperty({ example: 12, description: 'Runs started (day, workflow) or runs that called the model (model)' })
  runs!: number;
  @ApiProperty({ example: 30 }) model_calls!: number;
  @ApiProperty({ example: 12000 }) prompt_tokens!: number;
  @ApiProperty({ example: 3000 }) completion_tokens!: number;
  @ApiProperty({ example: 15000 }) total_tokens!: number;
  @ApiProperty({ type: CostDto, nullable: true, description: 'null: a call had no known price' })
  cost!: CostDto | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 4.2,
    description: 'Seconds of code-tool calls (by day and in totals; null by workflow and by model)',
  })
  code_cpu_seconds!: number | null;
}

export class UsageItemDto extends UsageFiguresDto {
  @ApiProperty({
    example: '2026-12-03',
    description: 'The UTC day, the workflow id (`inline` for runs of no stored workflow), or `provider/model`',
  })
  key!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'support-triage',
    description: 'By workflow: the workflow’s name; null for `inline`, a deleted workflow, and by day or model',
  })
  name!: string | null;
}

export class UsageResponse {
  @ApiProperty({ example: 'team-billing' }) user_id!: string;
  @ApiProperty({ example: '2026-11-03T00:00:00.000Z' }) from!: string;
  @ApiProperty({ example: '2026-12-03T18:00:00.000Z' }) to!: string;
  @ApiProperty({ enum: USAGE_GROUPINGS }) group_by!: UsageGrouping;
  @ApiProperty({ type: [UsageItemDto] }) items!: UsageItemDto[];
  @ApiProperty({ type: UsageFiguresDto }) totals!: UsageFiguresDto;
}
