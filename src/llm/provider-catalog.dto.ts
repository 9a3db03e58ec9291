import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { PROVIDER_PROTOCOLS, type ProviderProtocol } from '../config/provider-config';
import type { CatalogModel, CatalogProvider } from './provider-catalog';

export class ListProvidersQuery {
  @ApiPropertyOptional({
    description: "List each provider's models again now instead of using the listing cached for up to 10 minutes",
    example: false,
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  refresh?: boolean;
}

export class ModelPriceResponse {
  @ApiProperty({ example: 2.5, description: 'Per million prompt tokens' }) input!: number;
  @ApiProperty({ example: 10, description: 'Per million completion tokens' }) output!: number;
  @ApiPropertyOptional({ example: 1.25, description: 'Per million prompt tokens read from the cache' })
  cached_input?: number;
  @ApiPropertyOptional({ example: 10, description: 'Per million reasoning tokens (default: output)' })
  reasoning?: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({
    enum: ['provider', 'prices_file', 'list_price'],
    description:
      "Where the price comes from: the provider entry's models.<model>.price, PRICES_FILE, or the vendor's list price",
  })
  source!: 'provider' | 'prices_file' | 'list_price';
}

export class CatalogModelResponse implements CatalogModel {
  @ApiProperty({ example: 'gpt-4o' }) id!: string;
  @ApiProperty({ example: 128000, description: 'Tokens (in plus out) one request may hold' })
  context_window!: number;
  @ApiProperty({ type: ModelPriceResponse, nullable: true, description: 'Null: no known price (cost unknown)' })
  price!: ModelPriceResponse | null;
  @ApiProperty({
    type: [String],
    enum: ['configured', 'listed', 'priced'],
    description:
      "configured: named by the provider's entry; listed: by its model list endpoint; priced: a priced model",
  })
  sources!: Array<'configured' | 'listed' | 'priced'>;
}

export class LastModelCallResponse {
  @ApiProperty({ enum: ['success', 'error'] }) outcome!: 'success' | 'error';
  @ApiProperty({ example: '2026-12-03T10:00:00.000Z' }) at!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) error!: string | null;
}

export class CatalogProviderResponse implements CatalogProvider {
  @ApiProperty({ example: 'openai' }) name!: string;
  @ApiProperty({ enum: PROVIDER_PROTOCOLS }) protocol!: ProviderProtocol;
  @ApiProperty({ type: String, nullable: true, description: 'Admins only; null for other keys' })
  base_url!: string | null;
  @ApiProperty({ description: 'LLM_DEFAULT_PROVIDER: used by LLM nodes that name no provider' })
  is_default!: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'gpt-4o' }) default_model!: string | null;
  @ApiProperty({ type: [CatalogModelResponse] }) models!: CatalogModelResponse[];
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'Whether the last model listing answered; null when it was never tried',
  })
  reachable!: boolean | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why the last listing failed' })
  last_error!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'When the models were last listed' })
  checked_at!: string | null;
  @ApiProperty({ type: LastModelCallResponse, nullable: true, description: 'The last model call in this process' })
  last_call!: LastModelCallResponse | null;
}

export class ProviderListResponse {
  @ApiProperty({ type: [CatalogProviderResponse] }) items!: CatalogProviderResponse[];
}
