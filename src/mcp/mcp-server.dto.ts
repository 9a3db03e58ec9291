import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import { PageMeta } from '../common/http/pagination';
import { RawJson } from '../common/http/raw-json';
import { ToolResponse } from '../tools/tool.dto';
import { MCP_TRANSPORTS, type McpTransportType } from './mcp-server.entity';

const MAX_ENTRIES = 100;

/** An object of at most 100 string values (env variables, headers). */
const IsStringRecord = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isStringRecord',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= MAX_ENTRIES &&
          Object.values(value).every((item) => typeof item === 'string' && item.length <= 8192),
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} must be an object of at most ${MAX_ENTRIES} string values`,
      },
    },
    options,
  );

/** An optional object of string values (env variables, headers), taken as sent. */
const OptionalStringRecord = (example: Record<string, string>, description: string) =>
  // In the order a stack of these decorators applies them (bottom first), so validation reports the same.
  applyDecorators(
    RawJson(),
    IsStringRecord(),
    IsObject(),
    IsOptional(),
    ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example, description }),
  );

export class CreateMcpServerDto {
  @ApiProperty({
    example: 'files',
    pattern: '^[a-zA-Z0-9_-]{1,40}$',
    description: 'Unique among the servers of one owner; its tools are named `<name>__<tool>`',
  })
  @IsString()
  @Matches(/^[a-zA-Z0-9_-]{1,40}$/, { message: 'name must be 1-40 characters of letters, digits, _ or -' })
  name!: string;

  @ApiProperty({
    enum: MCP_TRANSPORTS,
    description: '`stdio` spawns `command` (admins only); `http` is Streamable HTTP',
  })
  @IsIn(MCP_TRANSPORTS)
  transport!: McpTransportType;

  @ApiPropertyOptional({ example: 'npx', description: 'stdio: the program to start' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  command?: string;

  @ApiPropertyOptional({ type: [String], example: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ENTRIES)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  args?: string[];

  @OptionalStringRecord(
    { GITHUB_TOKEN: 'ghp_…' },
    'stdio: the only environment the server gets, besides PATH; credential-named values are masked',
  )
  env?: Record<string, string>;

  @ApiPropertyOptional({ example: 'https://mcp.example.com/mcp', description: 'http: the Streamable HTTP endpoint' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @OptionalStringRecord(
    { Authorization: 'Bearer …' },
    'http: headers sent with every request; credential-named values are masked',
  )
  headers?: Record<string, string>;
}

export class McpServerResponse {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) id!: string;
  @ApiProperty({ example: 'files' }) name!: string;
  @ApiProperty({ enum: MCP_TRANSPORTS }) transport!: McpTransportType;
  @ApiProperty({ nullable: true, type: String, example: 'npx' }) command!: string | null;
  @ApiProperty({ type: [String] }) args!: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Secrets masked' })
  env!: Record<string, string>;
  @ApiProperty({ nullable: true, type: String, example: 'https://mcp.example.com/mcp' }) url!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Secrets masked' })
  headers!: Record<string, string>;
  @ApiProperty({ nullable: true, type: String, example: 'team-billing' }) user_id!: string | null;
  @ApiProperty({ description: 'Whether this process holds an open connection to it' }) connected!: boolean;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) updated_at!: string;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-30T08:00:00.000Z' }) synced_at!: string | null;
  @ApiProperty({
    type: [String],
    example: ['get.forecast'],
    description:
      'Names (on the server) of its tools it no longer offered at the last sync, whenever they went; their tools are disabled',
  })
  vanished_tools!: string[];
}

export class SkippedMcpToolDto {
  @ApiProperty({ example: 'get-weather', description: 'The tool’s name on the server' }) tool!: string;
  @ApiProperty({ example: 'parameters: the root must be type "object"' }) reason!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'files__get-weather',
    description:
      'The tool an earlier import made from it, left as it was (its stored schema, effect and enabled state) until a sync can import it again; null when there is none',
  })
  kept_tool!: string | null;
}

export class McpServerWriteResponse {
  @ApiProperty({ type: McpServerResponse }) server!: McpServerResponse;
  @ApiProperty({ type: [ToolResponse], description: 'The server’s tools as ToolFlow tools' }) tools!: ToolResponse[];
  @ApiProperty({ type: [SkippedMcpToolDto], description: 'Server tools that could not be made into tools' })
  skipped!: SkippedMcpToolDto[];
}

export class McpServerSyncResponse extends McpServerWriteResponse {
  @ApiProperty({ type: [String], example: ['files__read_file'] }) added!: string[];
  @ApiProperty({ type: [String] }) updated!: string[];
  @ApiProperty({ type: [String], description: 'Tools the server no longer offers; disabled, not deleted' })
  disabled!: string[];
}

export class McpServerPageResponse extends PageMeta {
  @ApiProperty({ type: [McpServerResponse] }) items!: McpServerResponse[];
}
