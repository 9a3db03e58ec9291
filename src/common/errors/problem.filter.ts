import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable';
import { DomainError, type FieldProblem, statusOf } from './domain-error';

/** RFC 9457 body; `errors` lists each field problem. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  /** The X-Request-Id of the request, to find its log lines. */
  request_id?: string;
  errors?: FieldProblem[];
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The one place that turns any error into application/problem+json; never leaks internals or stack traces. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<Request>();
    const response = context.getResponse<Response>();
    const problem = this.toProblem(exception);
    problem.instance = request.originalUrl;
    if (typeof request.id === 'string') problem.request_id = request.id;
    const databaseDown = isDatabaseUnavailable(exception);
    if (databaseDown) {
      this.logger.warn({ err: exception, path: request.originalUrl }, 'database unavailable');
    } else if (problem.status >= 500) {
      this.logger.error({ err: exception, path: request.originalUrl }, 'Unhandled error');
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    const retryAfter = exception instanceof DomainError ? exception.retryAfterSeconds : null;
    if (retryAfter !== null || databaseDown) {
      response.setHeader('Retry-After', String(retryAfter ?? DATABASE_RETRY_AFTER_SECONDS));
    }
    response.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  }

  private toProblem(exception: unknown): ProblemDetails {
    if (exception instanceof DomainError) {
      const status = statusOf(exception.code);
      return {
        ...exception.extra,
        type: `https://toolflow.dev/problems/${exception.code.replace(/_/g, '-')}`,
        title: TITLES[status] ?? 'Error',
        status,
        detail: exception.message,
        ...(exception.problems.length > 0 ? { errors: exception.problems } : {}),
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      const raw = typeof body === 'string' ? body : (body as { message?: unknown }).message;
      const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
      return this.plain(status, message, status === 404 ? 'not-found' : 'http-error');
    }
    if (isDatabaseUnavailable(exception)) {
      return this.plain(HttpStatus.SERVICE_UNAVAILABLE, 'database unavailable', 'database-unavailable');
    }
    return this.plain(HttpStatus.INTERNAL_SERVER_ERROR, 'An unexpected error occurred', 'internal');
  }

  private plain(status: number, detail: string, slug: string, errors?: FieldProblem[]): ProblemDetails {
    return {
      type: `https://toolflow.dev/problems/${slug}`,
      title: TITLES[status] ?? 'Error',
      status,
      detail,
      ...(errors ? { errors } : {}),
    };
  }
}
