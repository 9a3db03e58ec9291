import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { RawJson } from '../../common/http/raw-json';
import { ToolPreview } from '../tool.dto';

export class ImportOpenApiDto {
  @ApiPropertyOptional({
    description: 'The OpenAPI 3.0/3.1 or Swagger 2.0 document: an object, or its JSON or YAML text',
    oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }],
  })
  @IsOptional()
  @RawJson()
  document?: unknown;

  @ApiPropertyOptional({
    description: 'Where to fetch the document instead (through the outbound guard and its size limit)',
    example: 'https://api.example.com/openapi.json',
  })
  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\//i, { message: 'url must start with http:// or https://' })
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({
    description: "Replaces the document's server URL, base path included",
    example: 'https://api.example.com/v2',
  })
  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^/?#]+/i, { message: 'base_url must be an absolute http:// or https:// URL' })
  @MaxLength(1024)
  base_url?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Only these operations: operationIds, or "METHOD /path" for operations without one',
    example: ['listPets', 'showPetById'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2000)
  @IsString({ each: true })
  operations?: string[];

  @ApiPropertyOptional({ description: 'Prepended verbatim to every tool name', example: 'petstore_' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-zA-Z0-9_-]{0,48}$/, { message: 'prefix must be at most 48 letters, digits, _ or -' })
  prefix?: string;

  @ApiPropertyOptional({
    description:
      "Credentials, in the shape of an http tool's `auth`; each operation gets them when one of its security schemes takes that type (header and query names come from the scheme unless given)",
    example: { type: 'bearer', token: 'sk-…' },
  })
  @IsOptional()
  @IsObject()
  @RawJson()
  auth?: Record<string, unknown>;

  @ApiPropertyOptional({ default: false, description: 'Check and return the tools without saving them' })
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

export class SkippedOperationDto {
  @ApiProperty({ example: 'uploadFile', description: 'operationId, "METHOD /path", or "webhook …"/"… callback …"' })
  operation!: string;

  @ApiProperty({ example: 'its request body is multipart/form-data; only JSON bodies can be sent by an http tool' })
  reason!: string;
}

export class ImportedToolDto extends ToolPreview {
  @ApiPropertyOptional({ description: 'Absent in a dry run', example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  id?: string;

  @ApiPropertyOptional({ description: 'Absent in a dry run', example: 1 }) version?: number;
  @ApiPropertyOptional({ description: 'Absent in a dry run', example: 0 }) use_count?: number;
  @ApiPropertyOptional({ description: 'Absent in a dry run', example: '2026-11-30T08:00:00.000Z' }) created_at?: string;
  @ApiPropertyOptional({ description: 'Absent in a dry run', example: '2026-11-30T08:00:00.000Z' }) updated_at?: string;
}

export class OpenApiImportResponse {
  @ApiProperty({ type: [ImportedToolDto], description: 'The tools created (in a dry run: that would be created)' })
  created!: ImportedToolDto[];

  @ApiProperty({ type: [SkippedOperationDto] })
  skipped!: SkippedOperationDto[];
}
