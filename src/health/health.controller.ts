import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/principal';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Liveness plus database readiness; needs no API key. */
  @Get()
  @HttpCode(200)
  @ApiOkResponse({
    description: 'Alive and the database answers',
    schema: { example: { status: 'ok', database: 'up' } },
  })
  @ApiServiceUnavailableResponse({ description: 'Alive but the database does not answer' })
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
