import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { ForceDeleteQuery } from '../common/http/force-delete-query';
import { type Page, PageQuery } from '../common/http/pagination';
import {
  CreateMcpServerDto,
  McpServerPageResponse,
  type McpServerResponse,
  McpServerSyncResponse,
  McpServerWriteResponse,
} from './mcp-server.dto';
import { McpServersService } from './mcp-servers.service';

@ApiResource('mcp-servers')
@Controller('mcp-servers')
export class McpServersController {
  constructor(private readonly servers: McpServersService) {}

  @Post()
  @ApiOperation({
    operationId: 'createMcpServer',
    summary: 'Register an MCP server: connect, list its tools and create one mcp tool each',
  })
  @ApiCreatedResponse({ type: McpServerWriteResponse })
  @ApiProblemResponses(400, 403, 409, 422)
  create(@Body() body: CreateMcpServerDto, @CurrentPrincipal() principal: Principal): Promise<McpServerWriteResponse> {
    return this.servers.create(body, principal);
  }

  @Get()
  @ApiOperation({ operationId: 'listMcpServers', summary: 'The MCP servers this key registered (admins: all)' })
  @ApiOkResponse({ type: McpServerPageResponse })
  @ApiProblemResponses(400)
  list(@Query() query: PageQuery, @CurrentPrincipal() principal: Principal): Promise<Page<McpServerResponse>> {
    return this.servers.list(query, principal);
  }

  @Post(':id/sync')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'syncMcpServer',
    summary: 'List the server’s tools again: add new ones, update changed ones, disable vanished ones',
  })
  @ApiOkResponse({ type: McpServerSyncResponse })
  @ApiProblemResponses(400, 404, 422)
  sync(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<McpServerSyncResponse> {
    return this.servers.sync(id, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteMcpServer',
    summary:
      'Delete an MCP server and its tools; 409 with `dependants` while stored workflows use one, unless force=true',
  })
  @ApiNoContentResponse()
  @ApiProblemResponses(404, 409)
  remove(
    @Param('id') id: string,
    @Query() query: ForceDeleteQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    return this.servers.remove(id, principal, query.force === true);
  }
}
