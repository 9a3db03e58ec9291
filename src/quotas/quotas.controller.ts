import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { type Page, PageQuery } from '../common/http/pagination';
import { QuotaLimitsDto, QuotaPageResponse, QuotaResponse } from './quota.dto';
import { QuotasService } from './quotas.service';
import { UsageQuery, UsageResponse } from './usage.dto';
import { UsageService } from './usage.service';

@ApiResource('quotas', 400)
@Controller()
export class QuotasController {
  constructor(
    private readonly quotas: QuotasService,
    private readonly usage: UsageService,
  ) {}

  @ApiOperation({ operationId: 'getMyQuota', summary: 'The caller’s quotas, with what each window has used' })
  @Get('quotas/me')
  @ApiOkResponse({ type: QuotaResponse })
  mine(@CurrentPrincipal() principal: Principal): Promise<QuotaResponse> {
    return this.quotas.get(principal.userId, principal);
  }

  @ApiOperation({ operationId: 'listQuotas', summary: 'Every user that has quotas (admins)' })
  @AdminOnly()
  @Get('quotas')
  @ApiOkResponse({ type: QuotaPageResponse })
  @ApiProblemResponses(403)
  list(@Query() query: PageQuery): Promise<Page<QuotaResponse>> {
    return this.quotas.list(query);
  }

  @ApiOperation({ operationId: 'getQuota', summary: 'A user’s quotas, with what each window has used (admins)' })
  @AdminOnly()
  @Get('quotas/:user_id')
  @ApiOkResponse({ type: QuotaResponse })
  @ApiProblemResponses(403)
  get(@Param('user_id') userId: string, @CurrentPrincipal() principal: Principal): Promise<QuotaResponse> {
    return this.quotas.get(userId, principal);
  }

  @ApiOperation({
    operationId: 'putQuota',
    summary: 'Set a user’s quotas (admins): every quota at once; one left out no longer limits',
  })
  @AdminOnly()
  @Put('quotas/:user_id')
  @ApiOkResponse({ type: QuotaResponse })
  @ApiProblemResponses(403)
  put(
    @Param('user_id') userId: string,
    @Body() body: QuotaLimitsDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<QuotaResponse> {
    return this.quotas.put(userId, body, principal);
  }

  @ApiOperation({
    operationId: 'getUsage',
    summary: 'Runs, tokens, cost and code-tool seconds by day, workflow or model: what the quotas count',
  })
  @Get('usage')
  @ApiOkResponse({ type: UsageResponse })
  @ApiProblemResponses(403)
  getUsage(@Query() query: UsageQuery, @CurrentPrincipal() principal: Principal): Promise<UsageResponse> {
    return this.usage.get(query, principal);
  }
}
