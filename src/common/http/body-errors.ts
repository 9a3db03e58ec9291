import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';

interface BodyParserError {
  type?: string;
  limit?: number;
  message?: string;
}

/**
 * Express error middleware placed right after the body parsers: turns their errors into DomainErrors
 * before Nest maps a JSON SyntaxError to a bare 400 and loses what went wrong.
 */
export function bodyParserErrors(error: unknown, _request: Request, _response: Response, next: NextFunction): void {
  const { type, limit, message } = (error ?? {}) as BodyParserError;
  if (type === 'entity.too.large') {
    next(new DomainError('payload_too_large', `Request body exceeds the limit of ${limit ?? '?'} bytes`));
  } else if (type === 'entity.parse.failed') {
    next(
      DomainError.validation(
        [{ field: 'body', message: message ?? 'not valid JSON' }],
        `Malformed JSON body: ${message ?? ''}`.trim(),
      ),
    );
  } else if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    next(new DomainError('bad_request', message ?? 'Unsupported body encoding'));
  } else {
    next(error);
  }
}
