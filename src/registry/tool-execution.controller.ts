import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { type Page, PageQuery } from '../common/http/pagination';
import { ToolCallLogPageResponse, type ToolCallLogResponse } from '../call-logs/tool-call-log.dto';
import { ExecuteToolDto, ExecuteToolResponse } from '../executors/execute-tool.dto';
import { ToolExecutionService } from './tool-execution.service';

@ApiResource('tools', 404)
@Controller('tools')
export class ToolExecutionController {
  constructor(private readonly toolExecution: ToolExecutionService) {}

  @Post(':id/execute')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'executeTool',
    summary: 'Run a tool once, outside any workflow (debugging); the call is logged',
  })
  @ApiOkResponse({ type: ExecuteToolResponse, description: '`success` tells whether the tool succeeded' })
  @ApiResponse({ status: 422, type: ExecuteToolResponse, description: 'Invalid arguments; `errors` lists each field' })
  @ApiProblemResponses(400, 413)
  async execute(
    @Param('id') id: string,
    @Body() body: ExecuteToolDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ExecuteToolResponse> {
    const result = await this.toolExecution.execute(id, body.arguments, principal);
    if (result.error_kind === 'invalid_arguments') response.status(422);
    return result;
  }

  @Get(':id/logs')
  @ApiOperation({
    operationId: 'listToolLogs',
    summary: 'Executions of a tool, newest first (the owner and admins see every caller, others their own calls)',
  })
  @ApiOkResponse({ type: ToolCallLogPageResponse })
  async logsOf(
    @Param('id') id: string,
    @Query() query: PageQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<ToolCallLogResponse>> {
    return this.toolExecution.logsOf(id, principal, query);
  }
}
