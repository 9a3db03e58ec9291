import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Patch,
  Post,
  Put,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiIdempotencyKey } from '../common/idempotency/idempotency.interceptor';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { ApiIfMatch, IfMatch, VersionETagInterceptor, type VersionPrecondition } from '../common/http/etag';
import { ForceDeleteQuery } from '../common/http/force-delete-query';
import {
  GetVersionRoute,
  ListVersionsRoute,
  RollbackRoute,
  type VersionedResource,
} from '../common/http/version-routes';
import type { Page } from '../common/http/pagination';
import {
  BuiltinToolResponse,
  CreateToolDto,
  ImplementationTypeResponse,
  ListToolsQuery,
  RollbackToolDto,
  ToolPageResponse,
  ToolResponse,
  ToolVersionResponse,
  ToolVersionSummary,
  ToolWriteResponse,
  UpdateToolDto,
} from './tool.dto';
import { ToolsService } from './tools.service';
import { ToolVersionsService } from './tool-versions.service';

const TOOL_VERSIONS: VersionedResource = {
  path: ':id',
  name: 'Tool',
  summaryType: ToolVersionSummary,
  versionType: ToolVersionResponse,
  writtenType: ToolWriteResponse,
  rollbackSummary: 'Make the schema and implementation of an earlier version the next version',
};

/** PUT and PATCH: the tool's next version, refused with 412 when If-Match names a stale one. */
const ApiToolEdit = (operationId: string, summary: string) =>
  applyDecorators(
    ApiOperation({ operationId, summary }),
    ApiOkResponse({ type: ToolWriteResponse }),
    ApiProblemResponses(400, 403, 404, 409, 413),
    ApiIfMatch(),
  );

@ApiResource('tools')
@UseInterceptors(VersionETagInterceptor)
@Controller('tools')
export class ToolsController {
  constructor(
    private readonly tools: ToolsService,
    private readonly versions: ToolVersionsService,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listTools', summary: 'List the tools this key can see (public ones and its own)' })
  @ApiOkResponse({ type: ToolPageResponse })
  @ApiProblemResponses(400)
  list(@Query() query: ListToolsQuery, @CurrentPrincipal() principal: Principal): Promise<Page<ToolResponse>> {
    return this.tools.list(query, principal);
  }

  @Get('builtin')
  @ApiOperation({ operationId: 'listBuiltinTools', summary: 'The builtin tools the registry offers' })
  @ApiOkResponse({ type: [BuiltinToolResponse] })
  listBuiltins(): BuiltinToolResponse[] {
    return this.tools.listBuiltins();
  }

  // Declared before ':id' so Express does not read "implementation-types" as a tool name.
  @Get('implementation-types')
  @ApiOperation({
    operationId: 'listImplementationTypes',
    summary: 'Every implementation type with its config schema; builtins with their parameters and availability',
  })
  @ApiOkResponse({ type: [ImplementationTypeResponse] })
  listImplementationTypes(): ImplementationTypeResponse[] {
    return this.tools.implementationTypes();
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getTool', summary: 'One tool, by id or name' })
  @ApiOkResponse({ type: ToolResponse })
  @ApiProblemResponses(404)
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<ToolResponse> {
    return this.tools.get(id, principal);
  }

  @ListVersionsRoute(TOOL_VERSIONS)
  listVersions(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<ToolVersionSummary[]> {
    return this.versions.listVersions(id, principal);
  }

  @GetVersionRoute(TOOL_VERSIONS)
  getVersion(
    @Param('id') id: string,
    @Param('version', ParseIntPipe) version: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ToolVersionResponse> {
    return this.versions.getVersion(id, version, principal);
  }

  @RollbackRoute(TOOL_VERSIONS)
  rollback(
    @Param('id') id: string,
    @Body() body: RollbackToolDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ToolWriteResponse> {
    return this.tools.rollback(id, body.version, principal);
  }

  @Post()
  @ApiIdempotencyKey()
  @ApiOperation({ operationId: 'createTool', summary: 'Create a tool' })
  @ApiCreatedResponse({ type: ToolWriteResponse })
  @ApiProblemResponses(400, 403, 409, 413)
  create(@Body() body: CreateToolDto, @CurrentPrincipal() principal: Principal): Promise<ToolWriteResponse> {
    return this.tools.create(body, principal);
  }

  @Put(':id')
  @ApiToolEdit('replaceTool', 'Replace a tool (every field)')
  replace(
    @Param('id') id: string,
    @Body() body: CreateToolDto,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<ToolWriteResponse> {
    return this.tools.replace(id, body, principal, ifMatch);
  }

  @Patch(':id')
  @ApiToolEdit('updateTool', 'Change some fields of a tool')
  update(
    @Param('id') id: string,
    @Body() body: UpdateToolDto,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ): Promise<ToolWriteResponse> {
    return this.tools.update(id, body, principal, ifMatch);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTool',
    summary: 'Delete a tool; 409 with `dependants` while stored workflows use it, unless force=true',
  })
  @ApiNoContentResponse()
  @ApiProblemResponses(400, 403, 404, 409)
  remove(
    @Param('id') id: string,
    @Query() query: ForceDeleteQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    return this.tools.remove(id, principal, query.force === true);
  }
}
