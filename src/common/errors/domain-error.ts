export type ErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unprocessable'
  | 'too_many_requests'
  | 'unavailable';

/** One problem with a request, named by the field it is about (a JSON path like `function_schema.function.name`). */
export interface FieldProblem {
  field: string;
  message: string;
  /** JSON pointer of the offending value inside the request body (a workflow's references carry one). */
  pointer?: string;
  /** What was probably meant, when something close exists. */
  suggestion?: string;
}

/** Errors the services and the engine raise; mapped once to problem+json by ProblemFilter. Never HTTP-aware. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems: FieldProblem[] = [],
    readonly extra: Record<string, unknown> = {},
    /** Sent as Retry-After: when trying again makes sense. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static validation(problems: FieldProblem[], message = 'The request is invalid'): DomainError {
    return new DomainError('validation_failed', message, problems);
  }

  static notFound(what: string, key: string): DomainError {
    return new DomainError('not_found', `${what} "${key}" was not found`);
  }

  static forbidden(message: string): DomainError {
    return new DomainError('forbidden', message);
  }

  static conflict(message: string, field?: string): DomainError {
    return new DomainError('conflict', message, field ? [{ field, message }] : []);
  }

  static tooManyRequests(message: string, retryAfterSeconds: number): DomainError {
    return new DomainError('too_many_requests', message, [], {}, retryAfterSeconds);
  }

  static unavailable(message: string, retryAfterSeconds: number): DomainError {
    return new DomainError('unavailable', message, [], {}, retryAfterSeconds);
  }
}

const assertUnreachable = (value: never): never => {
  throw new Error(`Unhandled error code: ${String(value)}`);
};

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'bad_request':
    case 'validation_failed':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'precondition_failed':
      return 412;
    case 'payload_too_large':
      return 413;
    case 'unprocessable':
      return 422;
    case 'too_many_requests':
      return 429;
    case 'unavailable':
      return 503;
    default:
      return assertUnreachable(code);
  }
}
