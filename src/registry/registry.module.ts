import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import type { Port } from '../common/port';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import { TOOL_USE_COUNTS, type ToolUseCounts } from '../call-logs/tool-use-counts';
import { ToolsModule } from '../tools/tools.module';
import { ToolsService } from '../tools/tools.service';
import { ExecutorsModule } from '../executors/executors.module';
import { ToolCallsModule } from '../executors/tool-calls.module';
import { RegistryService } from './registry.service';
import { ToolExecutionController } from './tool-execution.controller';
import { ToolExecutionService } from './tool-execution.service';
import { OpenApiImportController } from '../tools/openapi-import/openapi-import.controller';
import { OpenApiImportService } from '../tools/openapi-import/openapi-import.service';

/**
 * Resolves stored tools to definitions; it also gives tools/ its implementation types (the executors), so ToolsModule
 * is wired here, and registers the tools' use counts with call-logs/ (its TOOL_USE_COUNTS port).
 */
@Module({
  imports: [ToolsModule.register(ExecutorsModule), ExecutorsModule, ToolCallsModule, ToolCallLogsModule],
  controllers: [ToolExecutionController, OpenApiImportController],
  providers: [RegistryService, ToolExecutionService, OpenApiImportService],
  exports: [RegistryService, ToolsModule, ToolCallsModule, ToolCallLogsModule],
})
export class RegistryModule implements OnModuleInit {
  constructor(
    private readonly tools: ToolsService,
    @Inject(TOOL_USE_COUNTS) private readonly useCounts: Port<ToolUseCounts>,
  ) {}

  onModuleInit(): void {
    this.useCounts.provide({
      add: (toolId, count) => this.tools.incrementUseCount(toolId, count),
      addition: (toolId, count) => this.tools.useCountIncrement(toolId, count),
    });
  }
}
