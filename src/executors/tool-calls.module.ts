import { Module } from '@nestjs/common';
import { ToolCallLogsModule } from '../call-logs/tool-call-logs.module';
import { ExecutorsModule } from './executors.module';
import { ToolCalls } from './tool-calls.service';

/** Runs tool calls over the executors and logs each one: what LLM and tool nodes, MCP and the debug endpoint use. */
@Module({
  imports: [ExecutorsModule, ToolCallLogsModule],
  providers: [ToolCalls],
  exports: [ToolCalls],
})
export class ToolCallsModule {}
