import {
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import type { Page } from '../common/http/pagination';
import { ListRunsQuery, RunPageResponse, RunResponse } from './run.dto';
import { FINISHED_STATUSES } from './run.entity';
import { RunEventsService } from './run-events.service';
import { RUN_SUPERVISOR, type RunSupervisor } from './run-supervisor';
import { RunsService } from './runs.service';

const HEARTBEAT_MS = 15_000;

@ApiTags('runs')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller('runs')
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    private readonly events: RunEventsService,
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

  @Get(':id/events')
  @ApiOperation({
    operationId: 'streamRunEvents',
    summary: 'Server-Sent Events of a run: past events first, then live ones; ends after run.finished',
    description:
      'Events: run.started, node.started, llm.delta, llm.reasoning, llm.retry, tool.call, tool.args.delta, tool.result, ' +
      'node.finished, run.finished. Each has `id:` (its sequence number); send Last-Event-ID to resume.',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id' })
  @ApiProblemResponses(404)
  async stream(
    @Param('id', ParseUUIDPipe) id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const run = await this.runs.findVisible(id, principal);
    const afterSeq = Math.max(0, Number.parseInt(lastEventId ?? after ?? '0', 10) || 0);
    response.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders();
    let closed = false;
    let stop: () => void = () => undefined;
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      stop();
      response.end();
    };
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
    request.on('close', end);
    stop = await this.events.subscribe(run.id, afterSeq, (event) => {
      if (closed) return;
      response.write(
        `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event.data, at: event.at })}\n\n`,
      );
      if (event.type === 'run.finished') end();
    });
    if (closed) stop();
    // A finished run whose stored log lacks run.finished (e.g. it was interrupted) still ends the stream.
    const current = await this.runs.findVisible(id, principal);
    if (!closed && FINISHED_STATUSES.includes(current.status) && !this.events.isLive(id)) end();
  }
}
