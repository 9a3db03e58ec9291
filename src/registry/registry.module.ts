import { Module } from '@nestjs/common';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import { ToolsModule } from '../tools/tools.module';
import { ExecutorsModule } from '../executors/executors.module';
import { RegistryService } from './registry.service';
import { ToolExecutionController } from './tool-execution.controller';
import { OpenApiImportController } from '../tools/openapi-import/openapi-import.controller';
import { OpenApiImportService } from '../tools/openapi-import/openapi-import.service';

/** Runs stored tools; it also gives tools/ its implementation types (the executors), so ToolsModule is wired here. */
@Module({
  imports: [ToolsModule.register(ExecutorsModule), ExecutorsModule, ToolCallLogsModule],
  controllers: [ToolExecutionController, OpenApiImportController],
  providers: [RegistryService, OpenApiImportService],
  exports: [RegistryService, ToolsModule],
})
export class RegistryModule {}
