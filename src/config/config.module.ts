import { Global, Module } from '@nestjs/common';
import { type AppConfig, loadConfig } from './app-config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Provides the typed AppConfig read once at boot; tests pass their own. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()) {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
