import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Min,
} from 'class-validator';
import { toBoolean } from '../common/http/force-delete-query';
import { PageQuery } from '../common/http/pagination';
import { RawJson } from '../common/http/raw-json';
import { sortDescription } from '../common/http/sort';
import { IMPLEMENTATION_TYPES, type ImplementationType, TOOL_EFFECTS, type ToolEffect } from '../shared/tool-types';

const WEATHER_SCHEMA = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name, e.g. Berlin' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

export class CreateToolDto {
  @ApiProperty({ example: 'get_weather', pattern: '^[a-zA-Z0-9_-]{1,64}$' })
  @IsString()
  @Matches(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'name must be 1-64 characters of letters, digits, _ or -' })
  name!: string;

  @ApiProperty({ example: 'Current weather for a city' })
  @IsString()
  @MaxLength(4000)
  description!: string;

  @ApiPropertyOptional({ example: 'weather', default: 'general' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  category?: string;

  @ApiProperty({
    description:
      'OpenAI function tool: the full `{"type":"function","function":{…}}` object or the bare `{name, description, parameters}`; stored in the full form',
    example: WEATHER_SCHEMA,
  })
  @IsObject()
  @RawJson()
  function_schema!: Record<string, unknown>;

  @ApiProperty({ enum: IMPLEMENTATION_TYPES, example: 'http' })
  @IsIn(IMPLEMENTATION_TYPES)
  implementation_type!: ImplementationType;

  @ApiPropertyOptional({
    description: 'Per implementation type; see GET /api/v1/tools/implementation-types for each config schema',
    example: { url: 'https://api.example.com/weather?city={city}', method: 'GET', parse_mode: 'json' },
  })
  @IsOptional()
  @IsObject()
  @RawJson()
  implementation_config?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: TOOL_EFFECTS, default: 'mutating' })
  @IsOptional()
  @IsIn(TOOL_EFFECTS)
  effect?: ToolEffect;

  @ApiPropertyOptional({
    description:
      'A call inside a run waits (run status `waiting`) until a person approves or rejects it; default true when `effect` is `dangerous`',
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  requires_approval?: boolean;

  @ApiPropertyOptional({ default: false, description: 'Visible to every user (admins only)' })
  @IsOptional()
  @IsBoolean()
  is_public?: boolean;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateToolDto extends PartialType(CreateToolDto) {}

export const TOOL_SORT_FIELDS = {
  name: 'name',
  category: 'category',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  use_count: 'useCount',
} as const;
export const TOOL_DEFAULT_SORT = 'name';

export class ListToolsQuery extends PageQuery {
  @ApiPropertyOptional({ example: 'weather' })
  @IsOptional()
  @IsString()
  category?: string;

  @ApiPropertyOptional({ enum: IMPLEMENTATION_TYPES })
  @IsOptional()
  @IsIn(IMPLEMENTATION_TYPES)
  implementation_type?: ImplementationType;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;

  @ApiPropertyOptional({ description: 'Search in name and description', example: 'weather' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({
    description: sortDescription(TOOL_SORT_FIELDS, TOOL_DEFAULT_SORT),
    example: '-created_at,name',
  })
  @IsOptional()
  @IsString()
  sort?: string;
}

export class SchemaWarningDto {
  @ApiProperty({ example: 'function_schema.function.parameters.propertes' }) field!: string;
  @ApiProperty({ example: 'propertes' }) keyword!: string;
  @ApiProperty({ example: 'unknown keyword "propertes" is ignored, so it validates nothing' }) message!: string;
  @ApiPropertyOptional({ example: 'properties' }) suggestion?: string;
}

export class ToolResponse {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) id!: string;
  @ApiProperty({ example: 'get_weather' }) name!: string;
  @ApiProperty({ example: 'Current weather for a city' }) description!: string;
  @ApiProperty({ example: 'weather' }) category!: string;
  @ApiProperty({ example: WEATHER_SCHEMA }) function_schema!: Record<string, unknown>;
  @ApiProperty({ enum: IMPLEMENTATION_TYPES }) implementation_type!: ImplementationType;
  @ApiProperty({ description: 'Secrets are masked as ********', example: { url: 'https://api.example.com/weather' } })
  implementation_config!: Record<string, unknown>;
  @ApiProperty({ enum: TOOL_EFFECTS }) effect!: ToolEffect;
  @ApiProperty({ description: 'Calls inside a run wait for a person’s approval' }) requires_approval!: boolean;
  @ApiProperty() is_public!: boolean;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ nullable: true, type: String, example: 'team-billing' }) user_id!: string | null;
  @ApiProperty({ example: 0 }) use_count!: number;
  @ApiProperty({ example: 1 }) version!: number;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) updated_at!: string;
}

export class ToolWriteResponse extends ToolResponse {
  @ApiProperty({ type: [SchemaWarningDto], description: 'Accepted but suspicious parts of the parameters schema' })
  warnings!: SchemaWarningDto[];
}

/** A tool as `create` would store it (dry runs): no id, counters or timestamps yet. */
export class ToolPreview extends OmitType(ToolWriteResponse, [
  'id',
  'use_count',
  'version',
  'created_at',
  'updated_at',
] as const) {}

export class ToolPageResponse {
  @ApiProperty({ type: [ToolResponse] }) items!: ToolResponse[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) page_size!: number;
  @ApiProperty({ example: 42 }) total!: number;
}

export class BuiltinToolResponse extends OmitType(ToolResponse, [
  'id',
  'requires_approval',
  'implementation_config',
  'is_public',
  'enabled',
  'user_id',
  'use_count',
  'version',
  'created_at',
  'updated_at',
] as const) {}

export class BuiltinAvailabilityDto {
  @ApiProperty({ example: 'file_read' }) name!: string;
  @ApiProperty({ example: 'Read a file below the configured root directory' }) description!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema of its arguments' })
  parameters!: Record<string, unknown>;
  @ApiProperty({ enum: TOOL_EFFECTS }) effect!: ToolEffect;
  @ApiProperty({ description: 'False when the configuration leaves it unusable' }) available!: boolean;
  @ApiPropertyOptional({ example: 'file_read is disabled: set FILE_READ_ROOT', description: 'Why it is unavailable' })
  reason?: string;
}

export class ImplementationTypeResponse {
  @ApiProperty({ enum: IMPLEMENTATION_TYPES, example: 'http' }) type!: ImplementationType;
  @ApiProperty({ example: 'Calls an HTTP API' }) description!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema of `implementation_config` for this type',
  })
  config_schema!: Record<string, unknown>;
  @ApiPropertyOptional({ type: [BuiltinAvailabilityDto], description: 'On the builtin type: every builtin' })
  builtins?: BuiltinAvailabilityDto[];
}

export class ToolVersionSummary {
  @ApiProperty({ example: 2 }) version!: number;
  @ApiProperty({ example: 'get_weather' }) name!: string;
  @ApiProperty({ example: 'Current weather for a city' }) description!: string;
  @ApiProperty({ enum: IMPLEMENTATION_TYPES }) implementation_type!: ImplementationType;
  @ApiProperty({ enum: TOOL_EFFECTS }) effect!: ToolEffect;
  @ApiProperty() requires_approval!: boolean;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) created_at!: string;
}

/** One immutable version of a tool, as it was saved. */
export class ToolVersionResponse extends ToolVersionSummary {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) tool_id!: string;
  @ApiProperty({ example: 'weather' }) category!: string;
  @ApiProperty({ example: WEATHER_SCHEMA }) function_schema!: Record<string, unknown>;
  @ApiProperty({ description: 'Secrets are masked as ********', example: { url: 'https://api.example.com/weather' } })
  implementation_config!: Record<string, unknown>;
}

export class RollbackToolDto {
  @ApiProperty({ example: 1, description: 'The version whose schema and implementation become the next version' })
  @IsInt({ message: 'version must be an integer' })
  @Min(1)
  version!: number;
}
