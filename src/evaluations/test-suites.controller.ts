import { Body, Controller, Get, Param, ParseUUIDPipe, Post, Put, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { SUITE_BODY, TEST_RUN_SCHEMA, TEST_SUITE_SCHEMA } from './evaluation-schemas';
import { TestRunWaitQuery } from './test-run-wait.query';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, testRunOptionsOf } from './test-run-options';
import { type TestRunResponse, TestRunsService } from './test-runs.service';
import { casesOfBody, type TestSuiteResponse, TestSuitesService } from './test-suites.service';

@ApiResource('tests')
@Controller()
export class TestSuitesController {
  constructor(
    private readonly suites: TestSuitesService,
    private readonly testRuns: TestRunsService,
  ) {}

  @Get('workflows/:id/tests')
  @ApiOperation({ operationId: 'getTestSuite', summary: "A workflow's test suite: its cases and their assertions" })
  @ApiOkResponse({ schema: TEST_SUITE_SCHEMA })
  @ApiProblemResponses(404)
  get(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<TestSuiteResponse> {
    return this.suites.get(id, principal);
  }

  @Post('workflows/:id/tests')
  @ApiOperation({
    operationId: 'addTestCases',
    summary: "Add cases to a workflow's test suite (created if it has none), as `cases` or as JSON Lines in `jsonl`",
  })
  @ApiBody({ schema: SUITE_BODY })
  @ApiCreatedResponse({ schema: TEST_SUITE_SCHEMA })
  @ApiProblemResponses(400, 403, 404, 409)
  add(
    @Param('id') id: string,
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TestSuiteResponse> {
    return this.suites.add(id, casesOfBody(body), principal);
  }

  @Put('workflows/:id/tests')
  @ApiOperation({ operationId: 'replaceTestSuite', summary: "Replace every case of a workflow's test suite" })
  @ApiBody({ schema: SUITE_BODY })
  @ApiOkResponse({ schema: TEST_SUITE_SCHEMA })
  @ApiProblemResponses(400, 403, 404)
  replace(
    @Param('id') id: string,
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TestSuiteResponse> {
    return this.suites.replace(id, casesOfBody(body), principal);
  }

  @Post('workflows/:id/test-runs')
  @ApiOperation({
    operationId: 'startTestRun',
    summary: "Run the workflow's suite: 201 with the ended test run, or with ?wait=false 202 while it runs",
    description:
      'A run per case, assertions checked, compared with the previous test run. With `wait=false`, follow ' +
      '`GET /workflows/{id}/test-runs/{testRunId}` (`progress`: cases done of total, results as cases end). ' +
      `\`concurrency\`: cases at once (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY}); \`budgets\`: ` +
      "each case's run budgets (a case's own win); `cases`: only these names; `version`: a saved version of the " +
      'workflow (GET /workflows/{id}/versions), default the current one.',
  })
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: {
        version: { type: 'integer', minimum: 1 },
        concurrency: { type: 'integer', minimum: 1, maximum: MAX_CONCURRENCY, default: DEFAULT_CONCURRENCY },
        budgets: { type: 'object', description: 'max_total_tokens, max_tool_calls, timeout_ms per case' },
        cases: { type: 'array', items: { type: 'string' } },
      },
    },
  })
  @ApiCreatedResponse({ schema: TEST_RUN_SCHEMA, description: 'The ended test run (the default, ?wait=true)' })
  @ApiAcceptedResponse({
    schema: TEST_RUN_SCHEMA,
    description: 'With ?wait=false: started (`running`); follow its Location',
  })
  @ApiProblemResponses(400, 404, 409)
  async start(
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() query: TestRunWaitQuery,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TestRunResponse> {
    const wait = query.wait !== false;
    const testRun = await this.testRuns.start(id, testRunOptionsOf(body), principal, wait);
    response.status(wait ? 201 : 202);
    response.setHeader('Location', `/api/v1/workflows/${testRun.workflow_id}/test-runs/${testRun.id}`);
    return testRun;
  }

  @Get('workflows/:id/test-runs')
  @ApiOperation({ operationId: 'listTestRuns', summary: "The suite's test runs, newest first (at most 100)" })
  @ApiOkResponse({ schema: { type: 'array', items: TEST_RUN_SCHEMA } })
  @ApiProblemResponses(404)
  list(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<TestRunResponse[]> {
    return this.testRuns.list(id, principal);
  }

  @Get('workflows/:id/test-runs/:testRunId')
  @ApiOperation({ operationId: 'getTestRun', summary: 'One test run: a result per case and the comparison' })
  @ApiOkResponse({ schema: TEST_RUN_SCHEMA })
  @ApiProblemResponses(404)
  getRun(
    @Param('id') id: string,
    @Param('testRunId', ParseUUIDPipe) testRunId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TestRunResponse> {
    return this.testRuns.get(id, testRunId, principal);
  }
}
