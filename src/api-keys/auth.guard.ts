import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError } from '../common/errors/domain-error';
import { type Principal, PUBLIC_ROUTE, REQUIRED_ROLE } from '../common/auth/principal';
import { ApiKeysService } from './api-keys.service';

/** Global guard: every route needs `Authorization: Bearer <key>` unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<Request & { principal?: Principal }>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw new DomainError('unauthorized', 'Missing API key: send "Authorization: Bearer <key>"');
    }
    const principal = await this.apiKeys.authenticate(match[1]);
    if (!principal) throw new DomainError('unauthorized', 'Invalid or revoked API key');
    const role = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_ROLE, targets);
    if (role === 'admin' && principal.role !== 'admin') {
      throw DomainError.forbidden('This route needs an admin API key');
    }
    request.principal = principal;
    return true;
  }
}
