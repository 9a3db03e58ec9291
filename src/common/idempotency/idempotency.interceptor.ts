import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { InjectRepository } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import { createHash, randomUUID } from 'node:crypto';
import { catchError, from, mergeMap, type Observable, of, throwError } from 'rxjs';
import { LessThan, Repository } from 'typeorm';
import type { Principal } from '../auth/principal';
import { DomainError } from '../errors/domain-error';
import { ApiProblemResponses } from '../http/api-problem-responses';
import { isDuplicateKey } from '../owned-queries';
import { IdempotencyKeyEntity } from './idempotency-key.entity';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const ACCEPTED_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on a creating route: the first request with a key runs and its success is remembered
 * for a day per caller (and route); the same key with the same body replays that response (`Idempotent-Replayed: true`),
 * with another body it is a 422, and while the first is still running a 409.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(@InjectRepository(IdempotencyKeyEntity) private readonly keys: Repository<IdempotencyKeyEntity>) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request & { principal?: Principal }>();
    const response = context.switchToHttp().getResponse<Response>();
    const key = request.headers['idempotency-key'];
    if (key === undefined || !request.principal) return next.handle();
    if (typeof key !== 'string' || !ACCEPTED_KEY.test(key)) {
      throw DomainError.validation([{ field: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' }]);
    }
    const userId = request.principal.userId;
    const route = `${request.method} ${(request.route as { path?: string } | undefined)?.path ?? request.path}`;
    const requestHash = createHash('sha256')
      .update(JSON.stringify({ params: request.params, query: request.query, body: request.body as unknown }))
      .digest('hex');
    return from(this.claim(userId, route, key, requestHash)).pipe(
      mergeMap((claim) => {
        if (claim.replay) {
          const stored = claim.replay;
          response.status(stored.statusCode ?? 200).setHeader('Idempotent-Replayed', 'true');
          if (stored.location) response.setHeader('Location', stored.location);
          return of(JSON.parse(stored.responseBody ?? 'null') as unknown);
        }
        // Nest sets the route's status before the handler runs, and a handler may change it: final here.
        return next.handle().pipe(
          mergeMap((body: unknown) => from(this.remember(claim.id, response, body).then(() => body))),
          catchError((error: unknown) => from(this.forget(claim.id)).pipe(mergeMap(() => throwError(() => error)))),
        );
      }),
    );
  }

  /** Takes the key for this request, or finds the remembered response to replay. */
  private async claim(
    userId: string,
    route: string,
    key: string,
    requestHash: string,
  ): Promise<{ id: string; replay?: undefined } | { id?: undefined; replay: IdempotencyKeyEntity }> {
    const now = new Date();
    // Expired keys of every caller go here, by the expires_at index, so the table holds about a day of keys.
    await this.keys.delete({ expiresAt: LessThan(now) });
    const id = randomUUID();
    try {
      await this.keys.insert({
        id,
        userId,
        route,
        key,
        requestHash,
        statusCode: null,
        responseBody: null,
        location: null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      });
      return { id };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const existing = await this.keys.findOneBy({ userId, route, key });
    if (!existing)
      throw DomainError.conflict('A request with this Idempotency-Key just ended; retry', 'Idempotency-Key');
    if (existing.requestHash !== requestHash) {
      throw new DomainError('unprocessable', 'This Idempotency-Key was used with another request body', [
        { field: 'Idempotency-Key', message: 'already used with another request; use a new key for a new request' },
      ]);
    }
    if (existing.statusCode === null) {
      throw DomainError.conflict('A request with this Idempotency-Key is still in progress', 'Idempotency-Key');
    }
    return { replay: existing };
  }

  private async remember(id: string, response: Response, body: unknown): Promise<void> {
    const location = response.getHeader('Location');
    await this.keys.update(
      { id },
      {
        statusCode: response.statusCode,
        responseBody: JSON.stringify(body ?? null),
        location: typeof location === 'string' ? location : null,
      },
    );
  }

  /** A failed request leaves no trace, so the client can retry with the same key. */
  private async forget(id: string): Promise<void> {
    await this.keys.delete({ id });
  }
}

/** Documents the optional Idempotency-Key header of a creating route. */
export const ApiIdempotencyKey = () =>
  applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Any unique string (e.g. a UUID): a retry with the same key and body gets the first response again ' +
        '(Idempotent-Replayed: true) instead of a second resource; another body with the key is a 422',
    }),
    ApiProblemResponses(409, 422),
    UseInterceptors(IdempotencyInterceptor),
  );
