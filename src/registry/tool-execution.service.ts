import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/auth/principal';
import type { Page, PageQuery } from '../common/http/pagination';
import type { ToolCallLogResponse } from '../call-logs/tool-call-log.dto';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import type { ExecuteToolResponse } from '../executors/execute-tool.dto';
import { ToolCalls } from '../executors/tool-calls.service';
import { ToolsService } from '../tools/tools.service';

/** A stored tool run by hand (debugging) and the calls logged of it, for a principal who may see the tool. */
@Injectable()
export class ToolExecutionService {
  constructor(
    private readonly tools: ToolsService,
    private readonly toolCalls: ToolCalls,
    private readonly logs: ToolCallLogsService,
  ) {}

  /** One call of the tool, outside any workflow, logged; 404 when the principal may not see it. */
  async execute(idOrName: string, rawArguments: unknown, principal: Principal): Promise<ExecuteToolResponse> {
    return this.toolCalls.executeOnce(await this.tools.findVisible(idOrName, principal), rawArguments, principal);
  }

  /** The tool's logged calls, newest first: its owner and admins see every caller, others their own calls. */
  async logsOf(idOrName: string, principal: Principal, query: PageQuery): Promise<Page<ToolCallLogResponse>> {
    return this.logs.listVisibleTo(await this.tools.findVisible(idOrName, principal), principal, query);
  }
}
