import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ShutdownGrace } from '../config/shutdown-grace';
import { type Port, portProvider, requirePorts } from '../common/port';
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
import { NodeRunsService } from './node-runs.service';
import { RunQueriesService } from './run-queries.service';
import { InProcessRunSupervisor } from './in-process-run-supervisor';
import { QueueRunSupervisor } from './queue-run-supervisor';
import { RunLeasesService } from './run-leases.service';
import { EmbeddedProcessLock } from './embedded-process-lock';
import { RUN_REDIS, RunRedis } from './run-redis';
import { RUN_EXECUTOR, RUN_SUPERVISOR, type RunExecutor, type RunSupervisor } from './run-supervisor';
import { WORKFLOW_LOOKUP, type WorkflowLookup } from './workflow-lookup';
import { RUN_ADMISSION, type RunAdmission } from './run-admission';
import { RunUsageService } from './run-usage.service';
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
    AuditModule,
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
    portProvider(WORKFLOW_LOOKUP),
    portProvider(RUN_ADMISSION),
    portProvider(RUN_EXECUTOR),
    RunsService,
    NodeRunsService,
    RunQueriesService,
    RunEventsService,
    RunEventStreamService,
    ToolResultsService,
    RunCheckpointStore,
    RunJournal,
    RunLeasesService,
    EmbeddedProcessLock,
    ApprovalsService,
    ModelExchangesService,
    RunUsageService,
    {
      provide: RUN_REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RunRedis | null =>
        config.redisUrl ? new RunRedis(config.redisUrl, config.redisPrefix) : null,
    },
    {
      // REDIS_URL picks the supervisor: BullMQ queue mode, or the embedded in-process queue.
      provide: RUN_SUPERVISOR,
      inject: [
        APP_CONFIG,
        RunsService,
        RunQueriesService,
        RunEventsService,
        RunLeasesService,
        RUN_REDIS,
        RUN_EXECUTOR,
        EmbeddedProcessLock,
        ShutdownGrace,
      ],
      useFactory: (
        config: AppConfig,
        runs: RunsService,
        queries: RunQueriesService,
        events: RunEventsService,
        leases: RunLeasesService,
        redis: RunRedis | null,
        executor: Port<RunExecutor>,
        lock: EmbeddedProcessLock,
        grace: ShutdownGrace,
      ): RunSupervisor =>
        redis
          ? new QueueRunSupervisor(runs, queries, events, leases, redis, executor, config, grace)
          : new InProcessRunSupervisor(runs, queries, events, executor, config, lock, grace),
    },
  ],
  exports: [
    RunsService,
    NodeRunsService,
    RunQueriesService,
    RunEventsService,
    ToolResultsService,
    RunCheckpointStore,
    ApprovalsService,
    ModelExchangesService,
    RUN_SUPERVISOR,
    RUN_EXECUTOR,
    WORKFLOW_LOOKUP,
    RUN_ADMISSION,
    RunUsageService,
  ],
})
export class RunsModule implements OnApplicationBootstrap {
  constructor(
    @Inject(RUN_EXECUTOR) private readonly executor: Port<RunExecutor>,
    @Inject(WORKFLOW_LOOKUP) private readonly workflows: Port<WorkflowLookup>,
    @Inject(RUN_ADMISSION) private readonly admission: Port<RunAdmission>,
  ) {}

  /** Refuses to start when no module registered how runs execute, how workflows are found (workflow/) and who may start one (quotas/). */
  onApplicationBootstrap(): void {
    requirePorts(this.executor, this.workflows, this.admission);
  }
}
