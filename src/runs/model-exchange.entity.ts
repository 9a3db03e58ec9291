import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One model call of a run as sent and answered, masked (shapes: ModelExchange in llm/model-exchange.ts). */
@Entity('model_exchanges')
@Index('uq_model_exchanges_item_call', ['runId', 'nodeId', 'item', 'callIndex'], { unique: true })
@Index('idx_model_exchanges_created', ['createdAt'])
export class ModelExchangeEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ name: 'node_id', type: 'varchar', length: 128 })
  nodeId!: string;

  /** The map item or loop iteration the node ran in (`each[2]`); '': outside any, or recorded before items were kept. */
  @Column({ type: 'varchar', length: 255, default: '' })
  item!: string;

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

  /** What the call used, as its response said: what usage and quotas count. */
  @Column({ name: 'prompt_tokens', type: 'int', default: 0 })
  promptTokens!: number;

  @Column({ name: 'completion_tokens', type: 'int', default: 0 })
  completionTokens!: number;

  @Column({ name: 'total_tokens', type: 'int', default: 0 })
  totalTokens!: number;

  /** What the call cost in billionths of `costCurrency` (integers add up exactly); null: no known price. */
  @Column({ name: 'cost_nanos', type: 'bigint', nullable: true })
  costNanos!: string | number | null;

  @Column({ name: 'cost_currency', type: 'varchar', length: 8, nullable: true })
  costCurrency!: string | null;
}
