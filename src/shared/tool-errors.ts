/** Thrown by executors for failures the model should hear about; runTool turns it into a response. */
export class ToolExecutionError extends Error {
  constructor(
    message: string,
    readonly details: { statusCode?: number; data?: unknown; metadata?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'ToolExecutionError';
  }
}

/** A refusal: outside an allowed boundary (SSRF guard, file root, read-only database). Reported as `forbidden`. */
export class ToolForbiddenError extends ToolExecutionError {
  constructor(message: string, details: ToolExecutionError['details'] = {}) {
    super(message, details);
    this.name = 'ToolForbiddenError';
  }
}

/** The tool stopped its own work at a time limit it enforces itself (e.g. a query limit). Reported as `timeout`. */
export class ToolTimeoutError extends ToolExecutionError {
  constructor(message: string, details: ToolExecutionError['details'] = {}) {
    super(message, details);
    this.name = 'ToolTimeoutError';
  }
}
