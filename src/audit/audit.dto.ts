import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, Length } from 'class-validator';
import { PageQuery } from '../common/http/pagination';

/** The kinds of object whose changes are audited. */
export const AUDITED_OBJECT_TYPES = [
  'tool',
  'workflow',
  'test_suite',
  'mcp_server',
  'api_key',
  'quota',
  'approval',
] as const;
export type AuditedObjectType = (typeof AUDITED_OBJECT_TYPES)[number];

/** What was done to the object. */
export const AUDIT_ACTIONS = ['create', 'update', 'delete', 'rollback', 'sync', 'revoke', 'approve', 'reject'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export class ListAuditQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Only changes made by this user (an API key’s user_id)',
    example: 'team-billing',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  actor_user_id?: string;

  @ApiPropertyOptional({ description: 'Only changes made with this API key (its id)', format: 'uuid' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  actor_key_id?: string;

  @ApiPropertyOptional({ enum: AUDITED_OBJECT_TYPES, description: 'Only changes to objects of this kind' })
  @IsOptional()
  @IsIn(AUDITED_OBJECT_TYPES)
  object_type?: AuditedObjectType;

  @ApiPropertyOptional({ description: 'Only changes to this object (its id)', example: 'b7f3…' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  object_id?: string;

  @ApiPropertyOptional({ description: 'Only changes made at or after this time', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ description: 'Only changes made before this time', example: '2026-12-02T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}

export class AuditActorDto {
  @ApiProperty({ example: '2b1f7c1e-4c55-4e0b-9a43-0c1b2b0f7a11', description: 'The API key’s id' })
  key_id!: string;
  @ApiProperty({ type: String, nullable: true, example: 'billing-service', description: 'The API key’s name' })
  key_name!: string | null;
  @ApiProperty({ example: 'team-billing' }) user_id!: string;
}

export class AuditObjectDto {
  @ApiProperty({ enum: AUDITED_OBJECT_TYPES }) type!: AuditedObjectType;
  @ApiProperty({ example: 'b7f3c1e2-…' }) id!: string;
  @ApiProperty({ type: String, nullable: true, example: 'get_weather' }) name!: string | null;
}

export class AuditRecordResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: '2026-12-03T18:00:00.000Z' }) created_at!: string;
  @ApiProperty({ type: AuditActorDto }) actor!: AuditActorDto;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: AuditAction;
  @ApiProperty({ type: AuditObjectDto }) object!: AuditObjectDto;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 3,
    description: 'The object’s version before the change (objects with versions: tools, workflows)',
  })
  before_version!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 4, description: 'The object’s version after the change' })
  after_version!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'X-Request-Id of the request that made the change' })
  request_id!: string | null;
}

export class AuditPageResponse {
  @ApiProperty({ type: [AuditRecordResponse] }) items!: AuditRecordResponse[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) page_size!: number;
  @ApiProperty({ example: 3 }) total!: number;
}
