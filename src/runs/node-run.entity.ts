import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type NodeRunStatus = 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

@Entity('node_runs')
@Index('idx_node_runs_run', ['runId'])
export class NodeRunEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ name: 'node_id', type: 'varchar', length: 128 })
  nodeId!: string;

  @Column({ name: 'node_type', type: 'varchar', length: 16 })
  nodeType!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: NodeRunStatus;

  @Column({ type: 'json', nullable: true })
  output!: unknown;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'started_at', type: 'datetime', precision: 3 })
  startedAt!: Date;

  @Column({ name: 'finished_at', type: 'datetime', precision: 3, nullable: true })
  finishedAt!: Date | null;
}
