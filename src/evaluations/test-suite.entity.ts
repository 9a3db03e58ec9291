import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TestCase } from './test-case.schema';

/** A workflow's test suite: its cases (checked when saved). One per workflow. */
@Entity('test_suites')
@Index('uq_test_suites_workflow', ['workflowId'], { unique: true })
export class TestSuiteEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workflow_id', type: 'varchar', length: 36 })
  workflowId!: string;

  @Column({ type: 'json' })
  cases!: TestCase[];

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
