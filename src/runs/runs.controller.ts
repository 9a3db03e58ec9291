import {
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  type MessageEvent,
  Query,
  Sse,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Observable } from 'rxjs';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import type { Page } from '../common/http/pagination';
import { ListRunsQuery, RunPageResponse, RunResponse } from './run.dto';
import { RunEventStreamService } from './run-event-stream.service';
import { RUN_SUPERVISOR, type RunSupervisor } from './run-supervisor';
import { RunQueriesService } from './run-queries.service';

@ApiTags('runs')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller('runs')
export class RunsController {
  constructor(
    private readonly runs: RunQueriesService,
    private readonly eventStream: RunEventStreamService,
    @Inject(RUN_SUPERVISOR) private readonly supervisor: RunSupervisor,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listRuns', summary: 'Runs of this key’s user (all runs for admins), newest first' })
  @ApiOkResponse({ type: RunPageResponse })
  @ApiProblemResponses(400)
  list(@Query() query: ListRunsQuery, @CurrentPrincipal() principal: Principal): Promise<Page<RunResponse>> {
    return this.runs.list(query, principal);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getRun',
    summary: 'A run with its outputs, error, usage, timings and node runs with their tool calls',
  })
  @ApiOkResponse({ type: RunResponse })
  @ApiProblemResponses(404)
  get(@Param('id', ParseUUIDPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<RunResponse> {
    return this.runs.get(id, principal);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'cancelRun',
    summary: 'Cancel a queued or running run: aborts the model request and running tools',
  })
  @ApiOkResponse({ type: RunResponse })
  @ApiProblemResponses(404, 409)
  cancel(@Param('id', ParseUUIDPipe) id: string, @CurrentPrincipal() principal: Principal): Promise<RunResponse> {
    return this.supervisor.cancel(id, principal);
  }

  @Sse(':id/events')
  @ApiOperation({
    operationId: 'streamRunEvents',
    summary: 'Server-Sent Events of a run: past events first, then live ones; ends after run.finished',
    description:
      'Events: run.started, node.started, llm.delta, llm.reasoning, llm.retry, llm.context_trimmed, tool.call, tool.args.delta, llm.usage, llm.output_retry, tool.result, ' +
      'approval.requested, approval.resolved, node.finished, run.finished. Each has `id:` (its sequence number); send Last-Event-ID to resume.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id' })
  @ApiProblemResponses(404)
  stream(
    @Param('id', ParseUUIDPipe) id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: string | undefined,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Observable<MessageEvent>> {
    const afterSeq = Math.max(0, Number.parseInt(lastEventId ?? after ?? '0', 10) || 0);
    return this.eventStream.open(id, principal, afterSeq);
  }
}
