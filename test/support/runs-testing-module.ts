import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Provider } from '@nestjs/common';
import { loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { databaseOptions } from '../../src/database-options';
import { ToolCallLogsModule } from '../../src/call-logs/tool-call-logs.module';
import { TOOL_USE_COUNTS, type ToolUseCounts } from '../../src/call-logs/tool-use-counts';
import { AuditModule } from '../../src/audit/audit.module';
import { NodeRunEntity } from '../../src/runs/node-run.entity';
import { RunEventEntity } from '../../src/runs/run-event.entity';
import { RunEntity } from '../../src/runs/run.entity';
import { RunCheckpointEntity } from '../../src/runs/run-checkpoint.entity';
import { RunApprovalEntity } from '../../src/runs/run-approval.entity';
import { RunJournal } from '../../src/runs/run-journal';
import { RUN_EXECUTOR } from '../../src/runs/run-supervisor';
import { WORKFLOW_LOOKUP } from '../../src/runs/workflow-lookup';
import { portProvider, providedPort } from '../../src/common/port';
import { RUN_ADMISSION, type RunAdmission } from '../../src/runs/run-admission';
import { DataSource } from 'typeorm';

/** A Nest testing module over a migrated in-memory SQLite database holding the runs tables. */
export async function runsTestingModule(
  providers: Provider[],
  env: Record<string, string> = {},
): Promise<TestingModule> {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', ...env });
  const moduleRef = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(config),
      TypeOrmModule.forRoot(databaseOptions(config.database, true)),
      TypeOrmModule.forFeature([RunEntity, NodeRunEntity, RunEventEntity, RunCheckpointEntity, RunApprovalEntity]),
      ToolCallLogsModule,
      AuditModule,
    ],
    // What RunsService and RunCheckpointStore note their writes in, and the ports workflow/ would register (a
    // provider of `providers` under the same token replaces an empty one).
    providers: [
      RunJournal,
      portProvider(RUN_EXECUTOR),
      portProvider(WORKFLOW_LOOKUP),
      {
        // No quotas: every run is stored.
        provide: RUN_ADMISSION,
        useFactory: (dataSource: DataSource) =>
          providedPort<RunAdmission>(RUN_ADMISSION, {
            prepare: () => async (insert) => void (await insert({}, dataSource.manager)),
          }),
        inject: [DataSource],
      },
      ...providers,
    ],
  })
    // No tool runs here; call-logs/ still needs its use counts port to start.
    .overrideProvider(TOOL_USE_COUNTS)
    .useValue(
      providedPort<ToolUseCounts>(TOOL_USE_COUNTS, {
        add: () => Promise.resolve(),
        addition: () => ({ sql: 'SELECT 1', parameters: [] }),
      }),
    )
    .compile();
  await moduleRef.init();
  return moduleRef;
}
