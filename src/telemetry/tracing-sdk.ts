import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { AppConfig } from '../config/app-config';

/** Scrapes and probes would be most of the traces. */
const UNTRACED_PATHS = new Set(['/health', '/metrics']);

let stop: (() => Promise<void>) | null = null;

/**
 * Starts the OpenTelemetry SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go to
 * `<endpoint>/v1/traces` over OTLP/HTTP, with HTTP, Express and mysql2 auto-instrumentation. Must run
 * before those modules are loaded (main.ts imports the app afterwards). Returns whether it started.
 */
export function startTracing(config: AppConfig['telemetry']): boolean {
  if (config.otlpEndpoint === null || stop !== null) return false;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${config.otlpEndpoint}/v1/traces` }))],
  });
  provider.register();
  const disable = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(request.url ?? '') }),
      new ExpressInstrumentation(),
      new MySQL2Instrumentation(),
    ],
  });
  stop = async () => {
    disable();
    await provider.shutdown();
  };
  return true;
}

/** Exports the spans still buffered and stops the SDK (no-op when it never started). */
export async function stopTracing(): Promise<void> {
  const current = stop;
  stop = null;
  await current?.();
}
