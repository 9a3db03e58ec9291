/** Injection token of the MCP connection pool (one per process). */
export const MCP_CONNECTIONS = Symbol('MCP_CONNECTIONS');
