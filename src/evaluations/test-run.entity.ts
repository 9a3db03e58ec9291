import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { CaseResult, TestRunComparison, TestRunSummary } from './test-run-results';

/** One run of a suite: a result per case, and how it compares with the suite's previous run. */
@Entity('test_runs')
@Index('idx_test_runs_workflow_created', ['workflowId', 'createdAt'])
export class TestRunEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'suite_id', type: 'varchar', length: 36 })
  suiteId!: string;

  @Column({ name: 'workflow_id', type: 'varchar', length: 36 })
  workflowId!: string;

  @Column({ name: 'workflow_version', type: 'int', nullable: true })
  workflowVersion!: number | null;

  @Column({ type: 'varchar', length: 16 })
  status!: string;

  @Column({ type: 'json' })
  summary!: TestRunSummary;

  @Column({ type: 'json' })
  results!: CaseResult[];

  @Column({ type: 'json', nullable: true })
  comparison!: TestRunComparison | null;

  @Column({ name: 'previous_test_run_id', type: 'varchar', length: 36, nullable: true })
  previousTestRunId!: string | null;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'datetime', precision: 3, nullable: true })
  finishedAt!: Date | null;

  /** The process running the test run's cases (see TestRunHeartbeat); null for rows older than it. */
  @Column({ type: 'varchar', length: 80, nullable: true })
  owner!: string | null;

  /** When the owner last said it is still running the test run. */
  @Column({ name: 'heartbeat_at', type: 'datetime', precision: 3, nullable: true })
  heartbeatAt!: Date | null;

  /** Why the test run ended before its cases did (interrupted, or its results could not be stored). */
  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
