import {
  type Attributes,
  context,
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { errorMessage } from '../shared/error-text';

export { SpanKind };
export type { Span };

/** Without a started SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset) this tracer is a no-op. */
const tracer = trace.getTracer('toolflow');

/** What `inSpan` hands to its work while no SDK is started: records nothing, like the no-op tracer's spans. */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Whether an SDK registered its tracer provider (startTracing, or a test's); the API's own is a no-op proxy. */
function tracingStarted(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer('toolflow') !== undefined;
}

/** Marks a span as failed with a reason; an Error is also recorded as an exception event. */
export function markSpanFailed(span: Span, reason: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(reason) });
  if (reason instanceof Error) span.recordException(reason);
}

/**
 * Runs `work` in a span that is the active one meanwhile, so that spans started inside it (nodes,
 * model calls, tool calls, HTTP and database calls) become its children. A throw marks it failed.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  // Without an SDK the span would be a no-op, yet starting it made a span and a context per call.
  if (!tracingStarted()) return untraced(work);
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markSpanFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

async function untraced<T>(work: (span: Span) => Promise<T>): Promise<T> {
  return work(NO_SPAN);
}

/**
 * `work` bound to the trace active now, for work that starts later from elsewhere (a queued run
 * starts when another run ends, and would otherwise join that run's trace).
 */
export function bindToActiveTrace<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R {
  return context.bind(context.active(), work);
}
