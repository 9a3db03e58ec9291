import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { AdminOnly } from '../common/auth/principal';
import { ApiResource } from '../common/http/api-resource';
import type { Page } from '../common/http/pagination';
import { AuditPageResponse, type AuditRecordResponse, ListAuditQuery } from './audit.dto';
import { AuditService } from './audit.service';

@ApiResource('audit', 400, 403)
@AdminOnly()
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @ApiOperation({
    operationId: 'listAuditRecords',
    summary:
      'The audit trail (admins): who changed which tool, workflow, suite, MCP server, key or quota, newest first',
  })
  @Get()
  @ApiOkResponse({ type: AuditPageResponse })
  list(@Query() query: ListAuditQuery): Promise<Page<AuditRecordResponse>> {
    return this.audit.list(query);
  }
}
