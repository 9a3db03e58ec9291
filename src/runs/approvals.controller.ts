import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import type { Page } from '../common/http/pagination';
import { ApprovalPageResponse, type ApprovalResponse, DecideApprovalDto, ListApprovalsQuery } from './approval.dto';
import { ApprovalsService } from './approvals.service';
import { RunResponse } from './run.dto';

@ApiTags('runs')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller()
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalsService) {}

  @Get('approvals')
  @ApiOperation({
    operationId: 'listApprovals',
    summary: 'Tool calls of this key’s user’s runs (all runs for admins) that wait for, or got, a decision',
  })
  @ApiOkResponse({ type: ApprovalPageResponse })
  @ApiProblemResponses(400)
  list(@Query() query: ListApprovalsQuery, @CurrentPrincipal() principal: Principal): Promise<Page<ApprovalResponse>> {
    return this.approvals.list(query, principal);
  }

  @Post('runs/:id/approvals/:approval_id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'decideApproval',
    summary: 'Approve (optionally with replacement arguments) or reject a tool call the run waits on',
    description:
      'Only the run’s owner or an admin. Once nothing of the run waits any more, it goes on from its checkpoint. ' +
      '422 when edited arguments do not match the tool’s schema, 409 when the call was already decided.',
  })
  @ApiOkResponse({ type: RunResponse })
  @ApiProblemResponses(400, 404, 409, 422)
  decide(
    @Param('id', ParseUUIDPipe) id: string,
    @Param('approval_id', ParseUUIDPipe) approvalId: string,
    @Body() body: DecideApprovalDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RunResponse> {
    return this.approvals.decide(id, approvalId, body, principal);
  }
}
