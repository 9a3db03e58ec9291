import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { ToolDefinitionColumns } from './tool-definition-columns';

@Entity('tools')
@Index('idx_tools_category', ['category'])
@Index('idx_tools_implementation_type', ['implementationType'])
@Index('idx_tools_user_id', ['userId'])
@Index('uq_tools_owner_name', ['userId', 'name'], { unique: true })
@Index('uq_tools_public_name', ['publicName'], { unique: true })
export class ToolEntity extends ToolDefinitionColumns {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'is_public', type: 'boolean' })
  isPublic!: boolean;

  /** The name while the row is public, else null: keeps public names unique among public rows. */
  @Column({ name: 'public_name', type: 'varchar', length: 64, nullable: true })
  publicName!: string | null;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ name: 'user_id', type: 'varchar', length: 64, nullable: true })
  userId!: string | null;

  @Column({ name: 'use_count', type: 'int' })
  useCount!: number;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
