import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/principal';

// A probe for load balancers and compose health checks, not part of the client API (it has no error
// a client could act on), so it stays out of the OpenAPI document; README documents it.
@ApiExcludeController()
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Liveness plus database readiness; needs no API key. */
  @Get()
  @HttpCode(200)
  async check(@Res({ passthrough: true }) response: Response): Promise<{ status: string; database: string }> {
    try {
      await this.dataSource.query('SELECT 1');
      return { status: 'ok', database: 'up' };
    } catch {
      response.status(503);
      return { status: 'degraded', database: 'down' };
    }
  }
}
