import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { ApiResource } from '../common/http/api-resource';
import { isRecord } from '../shared/is-record';
import { REPLAY_TOOL_MODES } from '../workflow/recording/replay-model-calls';
import type { Cassette } from './cassette';
import { type ReplayOptions, type ReplayReport, ReplayService } from './replay.service';
import { CASSETTE, REPLAY_REPORT_SCHEMA } from './evaluation-schemas';

const DEFINITIONS = ['current', 'recorded'] as const;

/** `{tools?, definition?}`: each checked, anything else refused. */
function replayOptionsOf(body: unknown): ReplayOptions {
  const value = body ?? {};
  if (!isRecord(value)) throw DomainError.validation([{ field: 'body', message: 'must be an object' }]);
  const problems: FieldProblem[] = Object.keys(value)
    .filter((key) => key !== 'tools' && key !== 'definition')
    .map((field) => ({ field, message: 'property should not exist' }));
  const tools = value.tools ?? 'recorded';
  const definition = value.definition ?? 'current';
  if (!(REPLAY_TOOL_MODES as readonly unknown[]).includes(tools)) {
    problems.push({ field: 'tools', message: `must be one of ${REPLAY_TOOL_MODES.join(', ')}` });
  }
  if (!(DEFINITIONS as readonly unknown[]).includes(definition)) {
    problems.push({ field: 'definition', message: `must be one of ${DEFINITIONS.join(', ')}` });
  }
  if (problems.length > 0) throw DomainError.validation(problems);
  return { tools, definition } as ReplayOptions;
}

@ApiResource('runs')
@Controller()
export class ReplayController {
  constructor(private readonly replays: ReplayService) {}

  @Post('runs/:id/replay')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'replayRun',
    summary: 'Re-execute a run against its recorded model answers (no provider contacted); report the first divergence',
    description:
      '`tools`: `recorded` (default) answers each tool call with the result the recording sent the model, `live` ' +
      "runs the tools. `definition`: `current` (default) runs the workflow as it is now, `recorded` the run's own.",
  })
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: {
        tools: { type: 'string', enum: [...REPLAY_TOOL_MODES], default: 'recorded' },
        definition: { type: 'string', enum: [...DEFINITIONS], default: 'current' },
      },
    },
  })
  @ApiOkResponse({ schema: REPLAY_REPORT_SCHEMA })
  @ApiProblemResponses(400, 404, 409)
  replay(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ReplayReport> {
    return this.replays.replayRun(id, replayOptionsOf(body), principal);
  }

  @Get('runs/:id/cassette')
  @ApiOperation({
    operationId: 'getRunCassette',
    summary: "A run's recorded model calls as a cassette (JSON, secrets masked): pin it in a test case to run offline",
  })
  @ApiOkResponse({ schema: CASSETTE })
  @ApiProblemResponses(404)
  cassette(@Param('id', ParseUUIDPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<Cassette> {
    return this.replays.cassette(id, principal);
  }
}
