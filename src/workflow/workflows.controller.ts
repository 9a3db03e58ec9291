import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Put,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ApiIdempotencyKey } from '../common/idempotency/idempotency.interceptor';
import { ForceDeleteQuery } from '../common/http/force-delete-query';
import {
  GetVersionRoute,
  ListVersionsRoute,
  RollbackRoute,
  type VersionedResource,
} from '../common/http/version-routes';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { ApiIfMatch, IfMatch, VersionETagInterceptor, type VersionPrecondition } from '../common/http/etag';
import type { Page } from '../common/http/pagination';
import { RunResponse, WaitQuery } from '../runs/run.dto';
import { WORKFLOW_DEFINITION_SCHEMA } from './definition.schema';
import {
  INLINE_RUN_BODY_SCHEMA,
  ListWorkflowsQuery,
  RUN_BODY_SCHEMA,
  WORKFLOW_BODY_SCHEMA,
  WorkflowPageResponse,
  WorkflowResponse,
} from './workflow.dto';
import { type WorkflowBody, WorkflowBodyPipe } from './workflow-body';
import { runRequestOf } from './execution/run-request';
import { type StartResult, RunStarter } from './execution/run-starter.service';
import { WorkflowsService } from './workflows.service';
import { WorkflowVersionsService } from './workflow-versions.service';
import { RollbackWorkflowDto, WorkflowVersionResponse, WorkflowVersionSummary } from './workflow-version.dto';

const WORKFLOW_VERSIONS: VersionedResource = {
  path: 'workflows/:id',
  name: 'Workflow',
  summaryType: WorkflowVersionSummary,
  versionType: WorkflowVersionResponse,
  writtenType: WorkflowResponse,
  rollbackSummary: 'Make the definition of an earlier version the next version (checked again as any save)',
};

const respond = (result: StartResult, response: Response): RunResponse => {
  response.status(result.finished ? 200 : 202);
  response.setHeader('Location', `/api/v1/runs/${result.run.id}`);
  return result.run;
};

@ApiResource('workflows')
@UseInterceptors(VersionETagInterceptor)
@Controller()
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly versions: WorkflowVersionsService,
    private readonly runner: RunStarter,
  ) {}

  @Get('workflows/schema')
  @ApiOperation({ operationId: 'getWorkflowSchema', summary: 'The JSON Schema of a workflow definition' })
  @ApiOkResponse({ description: 'JSON Schema (draft-07)' })
  schema(): typeof WORKFLOW_DEFINITION_SCHEMA {
    return WORKFLOW_DEFINITION_SCHEMA;
  }

  @Get('workflows')
  @ApiOperation({ operationId: 'listWorkflows', summary: 'Workflows this key can see' })
  @ApiOkResponse({ type: WorkflowPageResponse })
  list(@Query() query: ListWorkflowsQuery, @CurrentPrincipal() principal: Principal): Promise<Page<WorkflowResponse>> {
    return this.workflows.list(query, principal);
  }

  @Get('workflows/:id')
  @ApiOperation({ operationId: 'getWorkflow', summary: 'One workflow, by id or name' })
  @ApiOkResponse({ type: WorkflowResponse })
  @ApiProblemResponses(404)
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<WorkflowResponse> {
    return this.workflows.get(id, principal);
  }

  @Post('workflows')
  @ApiOperation({
    operationId: 'createWorkflow',
    summary: 'Save a workflow (validated: structure, references, tools, providers)',
  })
  @ApiBody(WORKFLOW_BODY_SCHEMA)
  @ApiCreatedResponse({ type: WorkflowResponse })
  @ApiProblemResponses(400, 403, 409, 413)
  create(
    @Body(WorkflowBodyPipe) body: WorkflowBody,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WorkflowResponse> {
    return this.workflows.create(body, principal);
  }

  @ListVersionsRoute(WORKFLOW_VERSIONS)
  listVersions(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<WorkflowVersionSummary[]> {
    return this.versions.list(id, principal);
  }

  @GetVersionRoute(WORKFLOW_VERSIONS)
  getVersion(
    @Param('id') id: string,
    @Param('version', ParseIntPipe) version: number,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WorkflowVersionResponse> {
    return this.versions.get(id, version, principal);
  }

  @RollbackRoute(WORKFLOW_VERSIONS)
  rollback(
    @Param('id') id: string,
    @Body() body: RollbackWorkflowDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<WorkflowResponse> {
    return this.versions.rollback(id, body.version, principal);
  }

  @Put('workflows/:id')
  @ApiOperation({ operationId: 'replaceWorkflow', summary: 'Replace a workflow definition (version bumped)' })
  @ApiBody(WORKFLOW_BODY_SCHEMA)
  @ApiOkResponse({ type: WorkflowResponse })
  @ApiProblemResponses(400, 403, 404, 409, 413)
  @ApiIfMatch()
  replace(
    @Param('id') id: string,
    @Body(WorkflowBodyPipe) body: WorkflowBody,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() ifMatch: VersionPrecondition | undefined,
  ) {
    return this.workflows.replace(id, body, principal, ifMatch);
  }

  @ApiOperation({
    operationId: 'deleteWorkflow',
    summary:
      'Delete a workflow (its runs are kept); 409 with `dependants` while workflow tools run it, unless force=true (which disables them)',
  })
  @Delete('workflows/:id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiProblemResponses(400, 403, 404, 409)
  remove(
    @Param('id') id: string,
    @Query() query: ForceDeleteQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    return this.workflows.remove(id, principal, query.force === true);
  }

  @Post('workflows/:id/runs')
  @ApiIdempotencyKey()
  @ApiOperation({
    operationId: 'runWorkflow',
    summary: 'Run a stored workflow: 202 with the run, or with ?wait=true 200 once it ends',
  })
  @ApiBody(RUN_BODY_SCHEMA)
  @ApiAcceptedResponse({ type: RunResponse, description: 'Started; follow /api/v1/runs/{id}/events' })
  @ApiOkResponse({ type: RunResponse, description: 'With ?wait=true: the finished run' })
  @ApiProblemResponses(400, 404, 413)
  async run(
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() query: WaitQuery,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunResponse> {
    const { inputs, budgets } = runRequestOf(body);
    const result = await this.runner.startStored(id, { principal, inputs, budgets, wait: query.wait === true });
    return respond(result, response);
  }

  @Post('workflow-runs')
  @ApiIdempotencyKey()
  @ApiOperation({ operationId: 'runInlineWorkflow', summary: 'Run an inline definition (not stored)' })
  @ApiBody(INLINE_RUN_BODY_SCHEMA)
  @ApiAcceptedResponse({ type: RunResponse })
  @ApiOkResponse({ type: RunResponse, description: 'With ?wait=true: the finished run' })
  @ApiProblemResponses(400, 413)
  async runInline(
    @Body() body: unknown,
    @Query() query: WaitQuery,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunResponse> {
    const { inputs, budgets, definition } = runRequestOf(body);
    if (definition === undefined) throw DomainError.validation([{ field: 'definition', message: 'is required' }]);
    const result = await this.runner.startInline(definition, { principal, inputs, budgets, wait: query.wait === true });
    return respond(result, response);
  }
}
