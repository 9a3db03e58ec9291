import { Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PriceTable } from './model-prices';
import { ProviderCatalog } from './provider-catalog';
import { ProviderRegistry } from './provider-registry';
import { ProvidersController } from './providers.controller';

/** The configured providers, built once from config, with their prices and the catalogue that lists them. */
@Global()
@Module({
  controllers: [ProvidersController],
  providers: [
    {
      provide: ProviderRegistry,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new ProviderRegistry(config.providers, { callBudgetMs: config.llmLimits.callBudgetMs }),
    },
    {
      provide: PriceTable,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new PriceTable(config.providers, config.prices),
    },
    {
      provide: ProviderCatalog,
      inject: [APP_CONFIG, ProviderRegistry, PriceTable],
      useFactory: (config: AppConfig, registry: ProviderRegistry, prices: PriceTable) =>
        new ProviderCatalog(config.providers, registry, prices, config.defaultProvider),
    },
  ],
  exports: [ProviderRegistry, PriceTable],
})
export class LlmModule {}
