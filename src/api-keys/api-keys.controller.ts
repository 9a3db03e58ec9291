import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import type { Page } from '../common/http/pagination';
import {
  ApiKeyPageResponse,
  type ApiKeyResponse,
  CreateApiKeyDto,
  CreatedApiKeyResponse,
  ListApiKeysQuery,
} from './api-key.dto';
import { ApiKeysService } from './api-keys.service';

@ApiResource('api-keys', 400, 403)
@AdminOnly()
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key (admins); the key is shown in this response only',
  })
  @Post()
  @ApiCreatedResponse({ type: CreatedApiKeyResponse, description: 'The key is in this response only' })
  create(@Body() body: CreateApiKeyDto, @CurrentPrincipal() principal: Principal): Promise<CreatedApiKeyResponse> {
    return this.apiKeys.create(body, principal);
  }

  @ApiOperation({ operationId: 'listApiKeys', summary: 'List API keys (admins), without the keys themselves' })
  @Get()
  @ApiOkResponse({ type: ApiKeyPageResponse })
  list(@Query() query: ListApiKeysQuery): Promise<Page<ApiKeyResponse>> {
    return this.apiKeys.list(query);
  }

  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key (admins)' })
  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiProblemResponses(404, 409)
  revoke(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.apiKeys.revoke(id, principal);
  }
}
