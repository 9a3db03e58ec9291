import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, Matches, Max, Min, ValidateNested } from 'class-validator';
import type { Cost } from '../llm/model-prices';

/** The quotas a user can have; each is optional, and one left out does not limit. */
export const QUOTA_NAMES = [
  'concurrent_runs',
  'runs_per_day',
  'tokens_per_day',
  'cost_per_day',
  'cost_per_month',
  'code_cpu_seconds_per_day',
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** The window a quota counts over: runs in progress now, the UTC day, the UTC calendar month. */
export type QuotaWindow = 'concurrent' | 'day' | 'month';

export class QuotaCostDto implements Cost {
  @ApiProperty({ example: 5, minimum: 0, description: "In the currency's main unit (dollars, not cents)" })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  amount!: number;

  @ApiProperty({ example: 'USD', description: 'ISO 4217; only model calls priced in it count' })
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as USD' })
  currency!: string;
}

const count = (description: string, example: number) =>
  ApiPropertyOptional({ type: 'integer', minimum: 0, example, description });

/** PUT /quotas/{user_id}: the user's quotas, all of them (one left out no longer limits). */
export class QuotaLimitsDto {
  @count('Runs of the user that have not ended (queued, running, waiting for an approval)', 3)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  concurrent_runs?: number;

  @count('Runs the user starts per UTC day', 500)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  runs_per_day?: number;

  @count('Model tokens (prompt + completion) the user’s runs use per UTC day', 2_000_000)
  @IsOptional()
  @IsInt()
  @Min(0)
  tokens_per_day?: number;

  @ApiPropertyOptional({ type: QuotaCostDto, description: 'What the user’s model calls may cost per UTC day' })
  @IsOptional()
  @ValidateNested()
  @Type(() => QuotaCostDto)
  cost_per_day?: QuotaCostDto;

  @ApiPropertyOptional({ type: QuotaCostDto, description: 'What the user’s model calls may cost per UTC month' })
  @IsOptional()
  @ValidateNested()
  @Type(() => QuotaCostDto)
  cost_per_month?: QuotaCostDto;

  @count('Seconds the user’s code-tool calls may run per UTC day', 600)
  @IsOptional()
  @IsInt()
  @Min(0)
  code_cpu_seconds_per_day?: number;
}

export class QuotaStateDto {
  @ApiProperty({ enum: QUOTA_NAMES }) quota!: QuotaName;
  @ApiProperty({ enum: ['concurrent', 'day', 'month'] }) window!: QuotaWindow;
  @ApiProperty({ example: 500, description: 'The limit (an amount for cost quotas)' }) limit!: number;
  @ApiProperty({ example: 12, description: 'What the window has used so far, counted as the limit is' }) used!: number;
  @ApiProperty({ type: String, nullable: true, example: '2026-12-04T00:00:00.000Z' })
  resets_at!: string | null;
  @ApiProperty({ example: false, description: 'New runs are refused (429) while this is true' }) exceeded!: boolean;
}

export class QuotaResponse {
  @ApiProperty({ example: 'team-billing' }) user_id!: string;
  @ApiProperty({ type: QuotaLimitsDto, description: 'The quotas set; none set: no limit' }) limits!: QuotaLimitsDto;
  @ApiProperty({ type: [QuotaStateDto], description: 'Each quota set, with what its window has used' })
  states!: QuotaStateDto[];
  @ApiProperty({ type: String, nullable: true, example: '2026-12-03T18:00:00.000Z' }) updated_at!: string | null;
}

export class QuotaPageResponse {
  @ApiProperty({ type: [QuotaResponse] }) items!: QuotaResponse[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) page_size!: number;
  @ApiProperty({ example: 3 }) total!: number;
}
