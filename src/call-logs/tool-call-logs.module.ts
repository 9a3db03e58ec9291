import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { type Port, portProvider, requirePorts } from '../common/port';
import { CallLogWriter } from './call-log-writer.service';
import { ToolCallLogEntity } from './tool-call-log.entity';
import { ToolCallLogsService } from './tool-call-logs.service';
import { TOOL_USE_COUNTS, type ToolUseCounts } from './tool-use-counts';

/** The log rows of tool calls: written by CallLogWriter (with use counts through TOOL_USE_COUNTS), read by the rest. */
@Module({
  imports: [TypeOrmModule.forFeature([ToolCallLogEntity])],
  providers: [ToolCallLogsService, CallLogWriter, portProvider(TOOL_USE_COUNTS)],
  exports: [ToolCallLogsService, CallLogWriter, TOOL_USE_COUNTS],
})
export class ToolCallLogsModule implements OnApplicationBootstrap {
  constructor(@Inject(TOOL_USE_COUNTS) private readonly useCounts: Port<ToolUseCounts>) {}

  /** Refuses to start when no module registered the use counts: every call's tool would keep its count. */
  onApplicationBootstrap(): void {
    requirePorts(this.useCounts);
  }
}
