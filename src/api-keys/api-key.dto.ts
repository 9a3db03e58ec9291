import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { PageQuery } from '../common/http/pagination';
import { sortDescription } from '../common/http/sort';
import type { Role } from '../shared/role';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'billing-service', description: 'What the key is for' })
  @IsString()
  @Length(1, 128)
  name!: string;

  @ApiProperty({ enum: ['admin', 'user'], example: 'user' })
  @IsIn(['admin', 'user'])
  role!: Role;

  @ApiPropertyOptional({
    example: 'team-billing',
    description: 'Owner identity the key acts as; several keys may share one. A new id is made when omitted.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_.@-]{1,64}$/, { message: 'user_id must be 1-64 characters of letters, digits, _ . @ -' })
  user_id?: string;
}

export class ApiKeyResponse {
  @ApiProperty({ example: '2b1f7c1e-4c55-4e0b-9a43-0c1b2b0f7a11' }) id!: string;
  @ApiProperty({ example: 'billing-service' }) name!: string;
  @ApiProperty({ enum: ['admin', 'user'] }) role!: Role;
  @ApiProperty({ example: 'team-billing' }) user_id!: string;
  @ApiProperty({ example: 'tf_Q2x9aB', description: 'First characters of the key, to recognise it' })
  key_prefix!: string;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) created_at!: string;
  @ApiProperty({ nullable: true, type: String, example: null }) revoked_at!: string | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({ example: 'tf_Q2x9aB…', description: 'The key itself. Shown only in this response; store it now.' })
  key!: string;
}

export const API_KEY_SORT_FIELDS = { created_at: 'createdAt', name: 'name', user_id: 'userId' } as const;
export const API_KEY_DEFAULT_SORT = 'created_at';

export class ListApiKeysQuery extends PageQuery {
  @ApiPropertyOptional({
    description: sortDescription(API_KEY_SORT_FIELDS, API_KEY_DEFAULT_SORT),
    example: '-created_at',
  })
  @IsOptional()
  @IsString()
  sort?: string;
}

export class ApiKeyPageResponse {
  @ApiProperty({ type: [ApiKeyResponse] }) items!: ApiKeyResponse[];
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) page_size!: number;
  @ApiProperty({ example: 3 }) total!: number;
}

/** The caller, as the API key it sent identifies it. */
export class MeResponse {
  @ApiProperty({ example: 'team-billing', description: 'The owner identity the key acts as' }) user_id!: string;
  @ApiProperty({ enum: ['admin', 'user'] }) role!: Role;
  @ApiProperty({ nullable: true, type: String, example: 'billing-service', description: 'The API key’s name' })
  key_name!: string | null;
}
