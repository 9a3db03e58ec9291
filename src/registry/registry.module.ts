import { Module } from '@nestjs/common';
import { ToolCallLogsModule } from './tool-call-logs.module';
import { ToolsModule } from '../tools/tools.module';
import { ExecutorsModule } from './executors.module';
import { RegistryService } from './registry.service';
import { ToolExecutionController } from './tool-execution.controller';

@Module({
  imports: [ToolsModule, ExecutorsModule, ToolCallLogsModule],
  controllers: [ToolExecutionController],
  providers: [RegistryService],
  exports: [RegistryService],
})
export class RegistryModule {}
