import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/principal';
import { sleep } from '../shared/sleep';

/** A database that has not answered `SELECT 1` by then is down for the probe (a hung server never answers). */
const DATABASE_ANSWER_MS = 1500;

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
    if (await this.databaseAnswers()) return { status: 'ok', database: 'up' };
    response.status(503);
    return { status: 'degraded', database: 'down' };
  }

  private async databaseAnswers(): Promise<boolean> {
    const waiting = new AbortController();
    try {
      return await Promise.race([
        this.dataSource.query('SELECT 1').then(
          () => true,
          () => false,
        ),
        sleep(DATABASE_ANSWER_MS, waiting.signal).then(
          () => false,
          () => false,
        ),
      ]);
    } finally {
      waiting.abort();
    }
  }
}
