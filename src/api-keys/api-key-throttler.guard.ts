import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';

/**
 * RATE_LIMIT_PER_MINUTE per API key, over all routes together. Runs after AuthGuard, which puts the
 * principal on the request; a request without one (a public route) is counted by address.
 */
@Injectable()
export class ApiKeyThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    const principal = request.principal as Principal | undefined;
    return Promise.resolve(principal ? `key:${principal.keyId}` : `address:${String(request.ip)}`);
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw DomainError.tooManyRequests(
      `Rate limit reached: this API key may send ${detail.limit} requests per minute; retry after ${detail.timeToBlockExpire} s`,
      detail.timeToBlockExpire,
    );
  }
}
