import {
  applyDecorators,
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { DomainError } from '../errors/domain-error';
import { ApiProblemResponses } from './api-problem-responses';

/** The opaque entity-tags an `If-Match` header lists (without quotes or `W/`); `any` for `*`. */
export type VersionPrecondition = string[] | 'any';

const etagOf = (version: number): string => `"${version}"`;

/** One entity-tag of a list (RFC 9110 §8.8.3): `W/`?, quoted characters other than `"`, then `,` or the end. */
const ENTITY_TAG = /^\s*(?:W\/)?"([\x21\x23-\x7e\x80-\uffff]*)"\s*(?:,|$)/;

/**
 * Parses `If-Match: "3"` (or `W/"3"`, a list, or `*`); undefined when the header is absent. A well-formed tag
 * that names no version (`"stale"`) is kept, so it fails the precondition (412); only a malformed header is a 400.
 */
export function parseIfMatch(header: string | undefined): VersionPrecondition | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (header.trim() === '*') return 'any';
  const tags: string[] = [];
  let rest = header;
  while (rest.trim() !== '') {
    const match = ENTITY_TAG.exec(rest);
    if (!match) {
      throw DomainError.validation([
        { field: 'If-Match', message: `must be entity-tags like "3" from a GET, or *; got ${header}` },
      ]);
    }
    tags.push(match[1]);
    rest = rest.slice(match[0].length);
  }
  return tags;
}

/** Refuses a write whose If-Match names another version than the stored one (412). */
export function assertVersionMatches(precondition: VersionPrecondition | undefined, version: number, what: string) {
  if (precondition === undefined || precondition === 'any' || precondition.includes(String(version))) return;
  throw new DomainError(
    'precondition_failed',
    `${what} is at version ${version}, not ${precondition.map((tag) => `"${tag}"`).join(', ')}; read it again (its ETag) and retry`,
  );
}

/** The parsed If-Match header of the request. */
export const IfMatch = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  parseIfMatch(context.switchToHttp().getRequest<Request>().headers['if-match']),
);

/** Sets `ETag` from the `version` of the returned row, so a client can send it back in If-Match. */
@Injectable()
export class VersionETagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((body: unknown) => {
        const version = (body as { version?: unknown } | null)?.version;
        if (typeof version === 'number' && !response.headersSent) response.setHeader('ETag', etagOf(version));
        return body;
      }),
    );
  }
}

/** Documents the optional If-Match header and its 412 on a write route. */
export const ApiIfMatch = () =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: 'The ETag of the version you read (e.g. "3"); a stale one is refused with 412',
    }),
    ApiProblemResponses(412),
  );
