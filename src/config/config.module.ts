import { Global, Module } from '@nestjs/common';
import { type AppConfig, loadConfig } from './app-config';
import { ShutdownGrace } from './shutdown-grace';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Provides the typed AppConfig read once at boot (tests pass their own) and the shutdown's one ShutdownGrace. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()) {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: ShutdownGrace, useValue: new ShutdownGrace(config.shutdownGraceMs) },
      ],
      exports: [APP_CONFIG, ShutdownGrace],
    };
  }
}
