import { type DynamicModule, Inject, Module, type OnModuleInit, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { OWNER_LISTENER, type OwnerListener } from './api-keys/owner-listener';
import type { Port } from './common/port';
import { ToolUsageService } from './workflow/tool-selection/tool-usage.service';
import { AuditModule } from './audit/audit.module';
import { QuotasModule } from './quotas/quotas.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import type { DataSourceOptions } from 'typeorm';
import { databaseOptions, openDatabase } from './database-options';
import { HealthModule } from './health/health.module';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { requestIdOf } from './common/http/request-id';
import { RegistryModule } from './registry/registry.module';
import { LlmModule } from './llm/llm.module';
import { McpModule } from './mcp/mcp.module';
import { RunsModule } from './runs/runs.module';
import { TelemetryModule } from './telemetry/telemetry.module';
import { WorkflowModule } from './workflow/workflow.module';
import { BundlesModule } from './bundles/bundles.module';
import { EvaluationsModule } from './evaluations/evaluations.module';
import { maskSecrets, redactUrl } from './shared/secrets';

/** Request log lines never carry credentials: credential-named headers and query values are masked. */
const serializeRequest = (request: { url?: string; headers?: Record<string, unknown> }) => ({
  ...request,
  url: request.url === undefined ? undefined : redactUrl(request.url),
  headers: maskSecrets(request.headers),
});

@Module({})
export class AppModule implements OnModuleInit {
  constructor(
    @Inject(OWNER_LISTENER) private readonly ownerListener: Port<OwnerListener>,
    private readonly toolUsage: ToolUsageService,
  ) {}

  /** api-keys/ tells of removed owners; what is kept per owner lives in modules it may not import. */
  onModuleInit(): void {
    this.ownerListener.provide({ ownerRemoved: (userId) => this.toolUsage.forgetOwner(userId) });
  }

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          // nestjs-pino's default '*' is legacy path syntax that Express 5 routing warns about at every start.
          forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
          pinoHttp: {
            level: config.log.level,
            transport: config.log.pretty ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
            serializers: { req: serializeRequest },
            autoLogging: { ignore: (request) => request.url === '/health' || request.url === '/metrics' },
            customProps: () => ({ service: 'toolflow' }),
            genReqId: requestIdOf,
          },
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => databaseOptions(config.database, false, config.databaseTimeoutMs),
          dataSourceFactory: (options) =>
            openDatabase(options as DataSourceOptions, config.migrationsRun, config.databaseTimeoutMs),
        }),
        HealthModule,
        IdempotencyModule,
        ApiKeysModule,
        AuditModule,
        RegistryModule,
        LlmModule,
        RunsModule,
        WorkflowModule,
        BundlesModule,
        EvaluationsModule,
        McpModule,
        QuotasModule,
        TelemetryModule.forRoot(config),
      ],
    };
  }
}
