import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiResource } from '../common/http/api-resource';
import { MeResponse } from './api-key.dto';

/** Any key may ask who it is; the console shows admins' columns (a tool's owner) only to admins. */
@ApiResource('api-keys')
@Controller('me')
export class MeController {
  @ApiOperation({ operationId: 'getMe', summary: 'Who the API key sent identifies: user id, role and key name' })
  @Get()
  @ApiOkResponse({ type: MeResponse })
  get(@CurrentPrincipal() principal: Principal): MeResponse {
    return { user_id: principal.userId, role: principal.role, key_name: principal.keyName ?? null };
  }
}
