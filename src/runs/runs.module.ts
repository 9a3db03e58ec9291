import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { NodeRunEntity } from './node-run.entity';
import { RunEventEntity } from './run-event.entity';
import { RunEntity } from './run.entity';
import { RunCheckpointEntity } from './run-checkpoint.entity';
import { RunCheckpointStore } from './run-checkpoint-store';
import { RunJournal } from './run-journal';
import { RunEventsService } from './run-events.service';
import { RunEventStreamService } from './run-event-stream.service';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';
import { InProcessRunSupervisor } from './in-process-run-supervisor';
import { QueueRunSupervisor } from './queue-run-supervisor';
import { RunLeasesService } from './run-leases.service';
import { EmbeddedProcessLock } from './embedded-process-lock';
import { RUN_REDIS, RunRedis } from './run-redis';
import { RUN_SUPERVISOR, type RunSupervisor } from './run-supervisor';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import { ToolResultEntity } from './tool-result.entity';
import { ToolResultsService } from './tool-results.service';
import { RunApprovalEntity } from './run-approval.entity';
import { ApprovalsService } from './approvals.service';
import { ApprovalsController } from './approvals.controller';
import { ModelExchangeEntity } from './model-exchange.entity';
import { ModelExchangesService } from './model-exchanges.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      RunEntity,
      NodeRunEntity,
      RunEventEntity,
      ToolResultEntity,
      RunCheckpointEntity,
      RunApprovalEntity,
      ModelExchangeEntity,
    ]),
    ToolCallLogsModule,
  ],
  controllers: [RunsController, ApprovalsController],
  providers: [
    RunsService,
    RunEventsService,
    RunEventStreamService,
    ToolResultsService,
    RunCheckpointStore,
    RunJournal,
    RunLeasesService,
    EmbeddedProcessLock,
    ApprovalsService,
    ModelExchangesService,
    {
      provide: RUN_REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RunRedis | null =>
        config.redisUrl ? new RunRedis(config.redisUrl, config.redisPrefix) : null,
    },
    {
      // REDIS_URL picks the supervisor: BullMQ queue mode, or the embedded in-process queue.
      provide: RUN_SUPERVISOR,
      inject: [APP_CONFIG, RunsService, RunEventsService, RunLeasesService, RUN_REDIS, ModuleRef, EmbeddedProcessLock],
      useFactory: (
        config: AppConfig,
        runs: RunsService,
        events: RunEventsService,
        leases: RunLeasesService,
        redis: RunRedis | null,
        moduleRef: ModuleRef,
        lock: EmbeddedProcessLock,
      ): RunSupervisor =>
        redis
          ? new QueueRunSupervisor(runs, events, leases, redis, moduleRef, config)
          : new InProcessRunSupervisor(runs, events, moduleRef, config, lock),
    },
  ],
  exports: [
    RunsService,
    RunEventsService,
    ToolResultsService,
    RunCheckpointStore,
    ApprovalsService,
    ModelExchangesService,
    RUN_SUPERVISOR,
  ],
})
export class RunsModule {}
