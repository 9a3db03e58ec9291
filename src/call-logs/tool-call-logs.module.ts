import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolCallLogEntity } from './tool-call-log.entity';
import { ToolCallLogsService } from './tool-call-logs.service';

@Module({
  imports: [TypeOrmModule.forFeature([ToolCallLogEntity])],
  providers: [ToolCallLogsService],
  exports: [ToolCallLogsService],
})
export class ToolCallLogsModule {}
