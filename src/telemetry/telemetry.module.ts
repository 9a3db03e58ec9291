import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { ExecutorsModule } from '../executors/executors.module';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import { RunsModule } from '../runs/runs.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { stopTracing } from './tracing-sdk';

/**
 * Operability on top of every other module: Prometheus metrics at /metrics, and the end of tracing
 * (which starts in main.ts, before the instrumented modules load). Nothing below imports this module.
 */
@Module({})
export class TelemetryModule implements OnApplicationShutdown {
  static forRoot(config: AppConfig): DynamicModule {
    if (!config.telemetry.metricsEnabled) return { module: TelemetryModule };
    return {
      module: TelemetryModule,
      imports: [RunsModule, ToolCallLogsModule, ExecutorsModule],
      controllers: [MetricsController],
      providers: [MetricsService],
    };
  }

  /** Runs after every other module's shutdown hook, so the spans of drained runs are exported too. */
  async onApplicationShutdown(): Promise<void> {
    await stopTracing();
  }
}
