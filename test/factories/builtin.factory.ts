import type { BuiltinEnvironment, BuiltinTool } from '../../src/executors/builtin/builtin-tool';
import { OutboundClient } from '../../src/outbound/outbound-client';
import type { ToolExecuteContext, ToolExecuteResult } from '../../src/shared/tool-definition';

/** A BuiltinEnvironment with a real OutboundClient; `allowPrivate` opens loopback for local test servers. */
export const builtinEnvironment = (
  allowPrivate: string[] = [],
  overrides: Partial<BuiltinEnvironment> = {},
): BuiltinEnvironment => ({
  outbound: new OutboundClient({
    allowPrivate,
    defaultTimeoutMs: 5000,
    maxResponseBytes: 1024 * 1024,
    maxRedirects: 5,
    userAgent: 'ToolFlow-test',
  }),
  files: { root: null, maxBytes: 0 },
  queryDatabase: null,
  ...overrides,
});

/** Runs a builtin as the registry would, outside any run. */
export function runBuiltin<P>(tool: BuiltinTool<P>, params: P, env: BuiltinEnvironment): Promise<ToolExecuteResult> {
  const signal = new AbortController().signal;
  const context: ToolExecuteContext<P> = {
    call: { id: 'call-1', name: tool.name, arguments: JSON.stringify(params) },
    params,
    messages: [],
    run: { runId: null, userId: 'u1', isAdmin: false, signal, depth: 0 },
    signal,
  };
  return tool.execute(params, context, env);
}
