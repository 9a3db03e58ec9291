import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuthGuard } from './auth.guard';
import { MeController } from './me.controller';

@Module({
  imports: [
    AuditModule,
    TypeOrmModule.forFeature([ApiKeyEntity]),
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ throttlers: [{ ttl: 60_000, limit: config.rateLimitPerMinute }] }),
    }),
  ],
  controllers: [ApiKeysController, MeController],
  // Guards run in this order: the rate limit needs the principal AuthGuard resolves.
  providers: [
    ApiKeysService,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: ApiKeyThrottlerGuard },
  ],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
