/** Injection tokens of ExecutorsModule, apart from the module so injecting one does not import the executors. */
export const EXECUTOR_CATALOG = Symbol('EXECUTOR_CATALOG');
export const BUILTIN_CATALOG = Symbol('BUILTIN_CATALOG');
export const OUTBOUND_CLIENT = Symbol('OUTBOUND_CLIENT');
export const CODE_SANDBOX = Symbol('CODE_SANDBOX');
export const PYTHON_RUNNER = Symbol('PYTHON_RUNNER');
