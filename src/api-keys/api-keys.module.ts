import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { type Port, portProvider, requirePorts } from '../common/port';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyThrottlerGuard } from './api-key-throttler.guard';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuthGuard } from './auth.guard';
import { MeController } from './me.controller';
import { OWNER_LISTENER, type OwnerListener } from './owner-listener';

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
    portProvider(OWNER_LISTENER),
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: ApiKeyThrottlerGuard },
  ],
  exports: [ApiKeysService, OWNER_LISTENER],
})
export class ApiKeysModule implements OnApplicationBootstrap {
  constructor(@Inject(OWNER_LISTENER) private readonly ownerListener: Port<OwnerListener>) {}

  /** Refuses to start when nothing registered what an owner's removal deletes (the root module does). */
  onApplicationBootstrap(): void {
    requirePorts(this.ownerListener);
  }
}
