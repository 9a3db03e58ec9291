import type { McpServerSyncResponse, ToolResponse } from '../../console/src/api/types';
import { syncedOutcome } from '../../console/src/lib/mcp-outcome';

describe(syncedOutcome.name, () => {
  it('should name each kind of change, and the tool a skipped one kept', () => {
    const result = {
      tools: [{ id: 't1' } as ToolResponse],
      added: ['files__read'],
      updated: [],
      disabled: ['files__old'],
      skipped: [
        { tool: 'files__write', reason: 'its schema does not compile', kept_tool: 'files__write' },
        { tool: 'files__x', reason: 'name taken' },
      ],
    } as unknown as McpServerSyncResponse;

    expect(syncedOutcome('files', result)).toEqual({
      title: 'Synced files: 1 tools',
      tools: result.tools,
      lines: [
        'added: files__read',
        'disabled (no longer offered): files__old',
        'skipped files__write: its schema does not compile (files__write kept as it was)',
        'skipped files__x: name taken',
      ],
    });
  });
});
