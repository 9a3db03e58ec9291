import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Role } from '../../shared/role';

/** Who is calling: resolved from the API key by AuthGuard. */
export interface Principal {
  userId: string;
  role: Role;
  keyId: string;
  /** The API key's name, when the caller used one (a run's own principal has none). */
  keyName?: string;
}

export const isAdmin = (principal: Principal): boolean => principal.role === 'admin';

export const PUBLIC_ROUTE = 'toolflow:public';
export const REQUIRED_ROLE = 'toolflow:role';

/** The route needs no API key (health only). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);
/** The route needs an admin key. */
export const AdminOnly = () => SetMetadata(REQUIRED_ROLE, 'admin');

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const request = context.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!request.principal) throw new Error('CurrentPrincipal used on a route without AuthGuard');
  return request.principal;
});
