/** Injection tokens of ExecutorsModule; kept apart so tools/ can inject them without importing the module graph. */
export const EXECUTOR_CATALOG = Symbol('EXECUTOR_CATALOG');
export const BUILTIN_CATALOG = Symbol('BUILTIN_CATALOG');
export const OUTBOUND_CLIENT = Symbol('OUTBOUND_CLIENT');
export const CODE_SANDBOX = Symbol('CODE_SANDBOX');
export const WORKFLOW_TOOL_RUNNER = Symbol('WORKFLOW_TOOL_RUNNER');
