import { MissingPortError, providedPort } from '../common/port';
import { sqliteTestingModule } from '../../test/support/sqlite-testing-module';
import type { ToolCallRecord } from './call-record';
import { CallLogWriter } from './call-log-writer.service';
import { ToolCallLogsModule } from './tool-call-logs.module';
import { ToolCallLogsService } from './tool-call-logs.service';
import { TOOL_USE_COUNTS } from './tool-use-counts';

const record = (overrides: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  toolId: 'tool-1',
  toolName: 'weather',
  toolVersion: 1,
  runId: null,
  nodeId: null,
  callId: 'call_1',
  userId: 'user-1',
  input: '{}',
  output: 'sunny',
  status: 'success',
  errorMessage: null,
  durationMs: 3,
  startedAt: new Date(),
  ...overrides,
});

describe(CallLogWriter.name, () => {
  it('should refuse to start when no module registers TOOL_USE_COUNTS', async () => {
    await expect(sqliteTestingModule([ToolCallLogsModule])).rejects.toThrow(MissingPortError);
  });

  it('should log a call outside a run at once and a run’s calls when the run is flushed, counting uses', async () => {
    const counted: Array<[string, number]> = [];
    const add = (toolId: string, count: number) => {
      counted.push([toolId, count]);
      return Promise.resolve();
    };
    // A run's counts go out as statements with its log rows; this module has no tools table to update.
    const addition = (toolId: string, count: number) => {
      counted.push([toolId, count]);
      return { sql: 'SELECT 1', parameters: [] };
    };
    const moduleRef = await sqliteTestingModule([ToolCallLogsModule], {
      overrides: [[TOOL_USE_COUNTS, providedPort(TOOL_USE_COUNTS, { add, addition })]],
    });
    try {
      const sut = moduleRef.get(CallLogWriter);
      const logs = moduleRef.get(ToolCallLogsService);

      await sut.store(record());
      await sut.store(record({ runId: 'run-1', callId: 'call_2', startedAt: new Date('2026-01-01T00:00:01Z') }));
      await sut.store(record({ runId: 'run-1', callId: 'call_3', startedAt: new Date('2026-01-01T00:00:02Z') }));
      expect(counted).toEqual([['tool-1', 1]]);
      expect(await logs.listForRun('run-1')).toEqual([]);

      await sut.flushRun('run-1');

      expect(counted).toEqual([
        ['tool-1', 1],
        ['tool-1', 2],
      ]);
      expect((await logs.listForRun('run-1')).map((row) => row.callId)).toEqual(['call_2', 'call_3']);
    } finally {
      await moduleRef.close();
    }
  }, 60_000);
});
