import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, isAdmin, type Principal } from '../common/auth/principal';
import { ApiResource } from '../common/http/api-resource';
import { ListProvidersQuery, ProviderListResponse } from './provider-catalog.dto';
import { ProviderCatalog } from './provider-catalog';

@ApiResource('providers', 400)
@Controller('providers')
export class ProvidersController {
  constructor(private readonly catalog: ProviderCatalog) {}

  @ApiOperation({
    operationId: 'listProviders',
    summary: 'The configured LLM providers: protocol, models, context windows, prices and reachability',
  })
  @Get()
  @ApiOkResponse({ type: ProviderListResponse })
  async list(
    @Query() query: ListProvidersQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ProviderListResponse> {
    return { items: await this.catalog.list({ refresh: query.refresh, showLocation: isAdmin(principal) }) };
  }
}
