import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One model call of a run as sent and answered, masked (shapes: ModelExchange in llm/model-exchange.ts). */
@Entity('model_exchanges')
@Index('uq_model_exchanges_call', ['runId', 'nodeId', 'callIndex'], { unique: true })
export class ModelExchangeEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ name: 'node_id', type: 'varchar', length: 128 })
  nodeId!: string;

  @Column({ name: 'call_index', type: 'int' })
  callIndex!: number;

  @Column({ type: 'varchar', length: 128 })
  provider!: string;

  @Column({ type: 'varchar', length: 256 })
  model!: string;

  @Column({ type: 'json' })
  request!: Record<string, unknown>;

  @Column({ type: 'json' })
  response!: Record<string, unknown>;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
