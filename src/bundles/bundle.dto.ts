import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { toBoolean } from '../common/http/force-delete-query';
import { CreateToolDto } from '../tools/tool.dto';

/** What `format` of a bundle says; `format_version` is the version of its shape. */
export const BUNDLE_FORMAT = 'toolflow-bundle';
export const BUNDLE_FORMAT_VERSION = 1;

export const CONFLICT_POLICIES = ['skip', 'rename', 'replace'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

export const IMPORT_STATUSES = ['created', 'skipped', 'renamed', 'replaced', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export class ExportQuery {
  @ApiPropertyOptional({
    description: 'Tools to export, ids or names, comma-separated. Without tools and workflows: everything you may see',
    example: 'get_weather,lookup',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  tools?: string;

  @ApiPropertyOptional({ description: 'Workflows to export, ids or names, comma-separated', example: 'weather' })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  workflows?: string;
}

export class ImportQuery {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Check and report; store nothing' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'dry_run must be true or false' })
  dry_run?: boolean;

  @ApiPropertyOptional({
    enum: CONFLICT_POLICIES,
    default: 'skip',
    description:
      'When you already have a tool or workflow of that name (or a public one has it, for a public item): keep ' +
      'yours (skip), import under a free name (rename: name_2, …), or store the bundle item as its next version (replace)',
  })
  @IsOptional()
  @IsIn(CONFLICT_POLICIES)
  on_conflict?: ConflictPolicy;
}

export class BundleTool extends CreateToolDto {
  @ApiProperty({ description: 'The id it had where it was exported (workflow tools are rewired by it)' })
  id!: string;
}

export class BundleWorkflow {
  @ApiProperty({ description: 'The id it had where it was exported' }) id!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The workflow definition, as GET /workflows/{id} shows it',
  })
  definition!: Record<string, unknown>;
  @ApiProperty() is_public!: boolean;
  @ApiProperty() enabled!: boolean;
}

export class Bundle {
  @ApiProperty({ enum: [BUNDLE_FORMAT] }) format!: typeof BUNDLE_FORMAT;
  @ApiProperty({ example: BUNDLE_FORMAT_VERSION }) format_version!: number;
  @ApiProperty({ example: '2026-12-01T12:00:00.000Z' }) exported_at!: string;
  @ApiProperty({ type: [BundleTool], description: 'Secrets masked as GET /tools shows them' }) tools!: BundleTool[];
  @ApiProperty({ type: [BundleWorkflow] }) workflows!: BundleWorkflow[];
}

export class ImportProblem {
  @ApiProperty({ example: 'tools[2].function_schema.function.name' }) field!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({
    example: '/tools/2',
    description: 'JSON pointer into the bundle: the item, or the offending value inside it when known',
  })
  pointer?: string;
}

export class ImportItemResult {
  @ApiProperty({ description: 'Position in the bundle list' }) index!: number;
  @ApiProperty({ nullable: true, type: String, description: 'The name it has (or would have) here' })
  name!: string | null;
  @ApiProperty({ enum: IMPORT_STATUSES }) status!: ImportStatus;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Its id here: new, replaced, or the existing one it was skipped for; null when failed or in a dry run of a new one',
  })
  id!: string | null;
  @ApiPropertyOptional({ description: 'renamed: the name it had in the bundle' }) original_name?: string;
  @ApiPropertyOptional({ description: 'skipped, replaced, renamed and failed: why' }) reason?: string;
  @ApiPropertyOptional({ type: [ImportProblem] }) errors?: ImportProblem[];
  @ApiPropertyOptional({
    type: [String],
    description:
      'Imported, but: a masked secret left unset (tools); a provider or model this service lacks, whose runs are ' +
      'refused here until it is configured (workflows)',
    example: ['implementation_config.auth.token came masked and is left unset: set it with PUT or PATCH'],
  })
  warnings?: string[];
}

export class ImportResult {
  @ApiProperty() dry_run!: boolean;
  @ApiProperty({ enum: CONFLICT_POLICIES }) on_conflict!: ConflictPolicy;
  @ApiProperty({ type: [ImportItemResult] }) tools!: ImportItemResult[];
  @ApiProperty({ type: [ImportItemResult] }) workflows!: ImportItemResult[];
}
