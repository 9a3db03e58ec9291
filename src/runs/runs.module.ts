import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NodeRunEntity } from './node-run.entity';
import { RunEventEntity } from './run-event.entity';
import { RunEntity } from './run.entity';
import { RunEventsService } from './run-events.service';
import { RunEventStreamService } from './run-event-stream.service';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';
import { InProcessRunSupervisor } from './in-process-run-supervisor';
import { RUN_SUPERVISOR } from './run-supervisor';
import { ToolCallLogsModule } from '../registry/tool-call-logs.module';
import { ToolResultEntity } from './tool-result.entity';
import { ToolResultsService } from './tool-results.service';

@Module({
  imports: [TypeOrmModule.forFeature([RunEntity, NodeRunEntity, RunEventEntity, ToolResultEntity]), ToolCallLogsModule],
  controllers: [RunsController],
  providers: [
    RunsService,
    RunEventsService,
    RunEventStreamService,
    ToolResultsService,
    { provide: RUN_SUPERVISOR, useClass: InProcessRunSupervisor },
  ],
  exports: [RunsService, RunEventsService, ToolResultsService, RUN_SUPERVISOR],
})
export class RunsModule {}
