import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { Port } from '../common/port';
import type { ToolCallRecord } from './call-record';
import { DeferredCallLogs, useCounts } from './deferred-call-logs';
import { ToolCallLogsService } from './tool-call-logs.service';
import { TOOL_USE_COUNTS, type ToolUseCounts } from './tool-use-counts';
import { unloggedCalls } from './unlogged-calls';

/**
 * Writes the log row of every tool call and bumps its tool's use count. A call of a run is logged off the model's
 * critical path (see DeferredCallLogs: `flushRunInBackground` after a step, `flushRun` before the run ends); a call
 * outside a run is logged before its answer.
 */
@Injectable()
export class CallLogWriter implements OnApplicationShutdown {
  private readonly logger = new Logger(CallLogWriter.name);
  private readonly deferred: DeferredCallLogs;

  constructor(
    private readonly logs: ToolCallLogsService,
    @Inject(TOOL_USE_COUNTS) private readonly counts: Port<ToolUseCounts>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.deferred = new DeferredCallLogs(
      (records, counts) => this.write(records, counts),
      (error, runId) => this.logger.warn({ err: error, runId }, 'tool call logs not stored yet; retrying at run end'),
    );
  }

  /** A call outside a run is stored at once; a run's calls are stored per step (see DeferredCallLogs). */
  async store(record: ToolCallRecord): Promise<void> {
    if (record.runId === null) {
      await this.logs.record(record);
      if (record.toolId) await this.counts.get().add(record.toolId, 1);
    } else {
      this.logs.announce(record);
      this.deferred.add(record.runId, record);
    }
  }

  /** Stores every call of the run made so far (log rows and use counts); await it before the run is ended. */
  flushRun(runId: string): Promise<void> {
    return this.deferred.flushRun(runId);
  }

  /**
   * Starts storing the calls of the run made so far, at the end of one of its steps, and returns at once; the
   * promise settles (never rejects) when they are stored or the write failed (they are retried later).
   */
  flushRunInBackground(runId: string): Promise<void> {
    return this.deferred.flushInBackground(runId);
  }

  /**
   * Writes the log rows and use counts of the calls among `calls` (a resumed run's answered calls, in the order
   * they were made) that have no row: a process that died had not written them yet. Calls with a row are left
   * alone, so that asking again writes nothing twice. Returns the calls it wrote.
   */
  async logUnloggedCalls(runId: string, calls: readonly ToolCallRecord[]): Promise<ToolCallRecord[]> {
    if (calls.length === 0) return [];
    const missing = unloggedCalls(calls, await this.logs.loggedCallsOf(runId));
    if (missing.length > 0) await this.write(missing, useCounts(missing));
    return missing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.deferred.flushAll();
  }

  /** The log rows, then the use counts, in one round trip on MySQL/MariaDB (see ToolCallLogsService.insert). */
  private async write(records: ToolCallRecord[], counts: ReadonlyMap<string, number>): Promise<void> {
    const useCounts = this.counts.get();
    const additions = [...counts].map(([toolId, count]) => useCounts.addition(toolId, count));
    await this.logs.insert(records, additions, this.config.runDbRetryMs);
  }
}
