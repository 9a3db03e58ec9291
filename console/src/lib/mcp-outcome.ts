import type { McpServerSyncResponse, McpServerWriteResponse, ToolResponse } from '../api/types';

/** What the last add or sync of an MCP server did: a title, a line per change, and the server's tools. */
export interface McpOutcome {
  title: string;
  tools: ToolResponse[];
  lines: string[];
}

export function addedOutcome(result: McpServerWriteResponse): McpOutcome {
  return {
    title: `Added ${result.server.name}: ${result.tools.length} tools`,
    tools: result.tools,
    lines: result.skipped.map((skipped) => `skipped ${skipped.tool}: ${skipped.reason}`),
  };
}

export function syncedOutcome(serverName: string, result: McpServerSyncResponse): McpOutcome {
  const named = (label: string, names: string[]) => (names.length ? [`${label}: ${names.join(', ')}`] : []);
  return {
    title: `Synced ${serverName}: ${result.tools.length} tools`,
    tools: result.tools,
    lines: [
      ...named('added', result.added),
      ...named('updated', result.updated),
      ...named('disabled (no longer offered)', result.disabled),
      ...result.skipped.map(
        (skipped) =>
          `skipped ${skipped.tool}: ${skipped.reason}` +
          (skipped.kept_tool ? ` (${skipped.kept_tool} kept as it was)` : ''),
      ),
    ],
  };
}
