import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { QuotaLimitsDto } from './quota.dto';

/** The quotas of one user (an API key's user_id); no row: no limit. */
@Entity('quotas')
export class QuotaEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ type: 'json' })
  limits!: QuotaLimitsDto;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
