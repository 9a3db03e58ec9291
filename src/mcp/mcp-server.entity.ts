import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const MCP_TRANSPORTS = ['stdio', 'http'] as const;
export type McpTransportType = (typeof MCP_TRANSPORTS)[number];

@Entity('mcp_servers')
@Index('uq_mcp_servers_user_name', ['userId', 'name'], { unique: true })
export class McpServerEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  transport!: McpTransportType;

  @Column({ type: 'text', nullable: true })
  command!: string | null;

  @Column({ type: 'json', nullable: true })
  args!: string[] | null;

  @Column({ type: 'json', nullable: true })
  env!: Record<string, string> | null;

  @Column({ type: 'text', nullable: true })
  url!: string | null;

  @Column({ type: 'json', nullable: true })
  headers!: Record<string, string> | null;

  @Column({ name: 'user_id', type: 'varchar', length: 64, nullable: true })
  userId!: string | null;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;

  @Column({ name: 'synced_at', type: 'datetime', precision: 3, nullable: true })
  syncedAt!: Date | null;

  /** Names (on the server) of this server's tools it no longer offers, as the last sync found them. */
  @Column({ name: 'vanished_tools', type: 'json', nullable: true })
  vanishedTools!: string[] | null;

  /**
   * Those of the vanished tools the sync itself disabled: only they are enabled again when they come back, so a
   * tool someone disabled by hand stays disabled.
   */
  @Column({ name: 'sync_disabled_tools', type: 'json', nullable: true })
  syncDisabledTools!: string[] | null;
}
