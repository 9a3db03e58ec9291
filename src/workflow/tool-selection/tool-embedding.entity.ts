import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The embedding of one tool version's text by one provider's model, computed once and reused by every node. */
@Entity('tool_embeddings')
export class ToolEmbeddingEntity {
  /** `<tool id>@<version>:<text hash>` for stored tools, `<name>:<text hash>` for the others. */
  @PrimaryColumn({ name: 'tool_key', type: 'varchar', length: 128 })
  toolKey!: string;

  /** `<provider>/<model>`. */
  @PrimaryColumn({ name: 'model_key', type: 'varchar', length: 255 })
  modelKey!: string;

  @Column({ type: 'int' })
  dimensions!: number;

  /** Float32 little-endian, base64. */
  @Column({ type: 'text' })
  vector!: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
