import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last checkpoint of a run: the state its execution goes on from (shape owned by workflow/). */
@Entity('run_checkpoints')
export class RunCheckpointEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ type: 'json' })
  state!: Record<string, unknown>;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
