import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RunsModule } from '../runs/runs.module';
import { WorkflowModule } from '../workflow/workflow.module';
import { ReplayController } from './replay.controller';
import { ReplayService } from './replay.service';
import { TestRunEntity } from './test-run.entity';
import { TestCaseRunner } from './test-case-runner';
import { TestRunHeartbeat } from './test-run-heartbeat';
import { TestRunsService } from './test-runs.service';
import { TestSuiteEntity } from './test-suite.entity';
import { TestSuitesController } from './test-suites.controller';
import { TestSuitesService } from './test-suites.service';

/** Test suites of workflows, their test runs, and replays of recorded runs. */
@Module({
  imports: [AuditModule, TypeOrmModule.forFeature([TestSuiteEntity, TestRunEntity]), RunsModule, WorkflowModule],
  controllers: [TestSuitesController, ReplayController],
  providers: [TestSuitesService, TestRunsService, TestCaseRunner, TestRunHeartbeat, ReplayService],
})
export class EvaluationsModule {}
