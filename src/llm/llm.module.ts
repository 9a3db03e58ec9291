import { Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ProviderRegistry } from './provider-registry';

/** The configured OpenAI-compatible providers, built once from config. */
@Global()
@Module({
  providers: [
    {
      provide: ProviderRegistry,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new ProviderRegistry(config.providers, { callBudgetMs: config.llmLimits.callBudgetMs }),
    },
  ],
  exports: [ProviderRegistry],
})
export class LlmModule {}
