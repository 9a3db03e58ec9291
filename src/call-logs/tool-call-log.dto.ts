import { ApiProperty } from '@nestjs/swagger';
import { TOOL_CALL_STATUSES } from '../shared/tool-call-status';
import { TOOL_CALL_REPAIR_KINDS, type ToolCallRepairKind } from '../shared/tool-types';

/** What `started_at` of a logged call means (see CallLogWriter.logUnloggedCalls for calls logged at a resume). */
export const STARTED_AT_DESCRIPTION =
  'When the call started. For a call whose log was written when its run resumed from its checkpoint (README: After a crash), when that log was written: the start of such a call is not stored';

/** The repair mark of a call (see ToolCallRepairKind). */
export class ToolCallRepairDto {
  @ApiProperty({ enum: TOOL_CALL_REPAIR_KINDS, example: 'json_answer' }) kind!: ToolCallRepairKind;
}

export class ToolCallLogResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ nullable: true, type: String }) tool_id!: string | null;
  @ApiProperty({ example: 'get_weather' }) tool_name!: string;
  @ApiProperty({ nullable: true, type: Number }) tool_version!: number | null;
  @ApiProperty({ nullable: true, type: String }) run_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) node_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) call_id!: string | null;
  @ApiProperty() user_id!: string;
  @ApiProperty({ example: '{"city":"Berlin"}' }) input!: string;
  @ApiProperty({ nullable: true, type: String }) output!: string | null;
  @ApiProperty({ enum: TOOL_CALL_STATUSES })
  status!: string;
  @ApiProperty({ nullable: true, type: String }) error_message!: string | null;
  @ApiProperty({ example: 12 }) duration_ms!: number;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 9,
    description: 'CPU time the call used (code tools), in ms; null when not measured',
  })
  cpu_ms!: number | null;
  @ApiProperty({
    type: ToolCallRepairDto,
    nullable: true,
    description:
      "How the call was repaired from a weak model's answer (docs/providers.md, Repaired calls); null: it was not",
  })
  repair!: ToolCallRepairDto | null;
  @ApiProperty({ description: STARTED_AT_DESCRIPTION }) started_at!: string;
  @ApiProperty() created_at!: string;
}

export class ToolCallLogPageResponse {
  @ApiProperty({ type: [ToolCallLogResponse] }) items!: ToolCallLogResponse[];
  @ApiProperty() page!: number;
  @ApiProperty() page_size!: number;
  @ApiProperty() total!: number;
}
