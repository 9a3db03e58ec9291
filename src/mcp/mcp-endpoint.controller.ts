import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { McpEndpointService } from './mcp-endpoint.service';

// MCP over Streamable HTTP (POST messages, GET stream, DELETE session end) at /mcp, outside /api/v1: a protocol
// endpoint, not a REST resource, so it stays out of the OpenAPI document; README documents it.
@ApiExcludeController()
@Controller('mcp')
export class McpEndpointController {
  constructor(private readonly endpoint: McpEndpointService) {}

  @All()
  handle(@CurrentPrincipal() principal: Principal, @Req() request: Request, @Res() response: Response): Promise<void> {
    return this.endpoint.handle(principal, request, response);
  }
}
