import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import type { Port } from '../common/port';
import { RegistryModule } from '../registry/registry.module';
import { RUN_ADMISSION, type RunAdmission } from '../runs/run-admission';
import { RunsModule } from '../runs/runs.module';
import { QuotaEntity } from './quota.entity';
import { QuotaUsage } from './quota-usage';
import { QuotasController } from './quotas.controller';
import { QuotasService } from './quotas.service';
import { UsageService } from './usage.service';

/** Quotas per user and usage: registers the admission check every new run passes (RUN_ADMISSION of runs/). */
@Module({
  imports: [TypeOrmModule.forFeature([QuotaEntity]), AuditModule, RunsModule, ToolCallLogsModule, RegistryModule],
  controllers: [QuotasController],
  providers: [QuotasService, QuotaUsage, UsageService],
})
export class QuotasModule implements OnModuleInit {
  constructor(
    @Inject(RUN_ADMISSION) private readonly admission: Port<RunAdmission>,
    private readonly quotas: QuotasService,
  ) {}

  onModuleInit(): void {
    this.admission.provide(this.quotas);
  }
}
