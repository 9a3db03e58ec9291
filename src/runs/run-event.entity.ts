import { randomUUID } from 'node:crypto';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { RunEvent } from './run-event-types';

@Entity('run_events')
@Index('uq_run_events_run_seq', ['runId', 'seq'], { unique: true })
export class RunEventEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ type: 'int' })
  seq!: number;

  @Column({ type: 'varchar', length: 32 })
  type!: string;

  @Column({ type: 'json' })
  data!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}

/** The rows of a run's events, as stored. */
export const toEventRows = (runId: string, events: readonly RunEvent[]): RunEventEntity[] =>
  events.map((event) => ({
    id: randomUUID(),
    runId,
    seq: event.seq,
    type: event.type,
    data: event.data,
    createdAt: new Date(event.at),
  }));
