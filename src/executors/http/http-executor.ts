import type { OutboundClient } from '../../outbound/outbound-client';
import { OutboundNetworkError } from '../../outbound/outbound-network-error';
import type { OutboundRequest } from '../../outbound/outbound-request';
import { redactSecretValues } from '../../shared/secrets';
import { retry } from '../../shared/retry';
import type { Sleep } from '../../shared/sleep';
import type { ToolExecutor } from '../executor';
import { type ToolDefinition, type ToolExecuteContext, type ToolExecuteResult } from '../../shared/tool-definition';
import { ToolExecutionError } from '../../shared/tool-errors';
import { type ToolEffect } from '../../shared/tool-types';
import { buildHttpRequest, secretsOf } from './build-http-request';
import { formatHttpResponse, httpStatusError } from './format-http-response';
import {
  HTTP_SECRET_PATHS,
  HTTP_TOOL_CONFIG_SCHEMA,
  MAX_RESPONSE_BYTES,
  MAX_TIMEOUT_MS,
  type HttpToolConfig,
} from './http-tool-config';
import { cappedRetryAfter, MAX_RETRY_WAIT_MS, RETRYABLE_STATUSES } from './retry-policy';
import { validateHttpConfig } from './validate-http-config';

export interface HttpExecutorDeps {
  outbound: OutboundClient;
  /** Retries for read-only and idempotent tools that do not configure their own. */
  defaultRetry?: { count: number; backoff_ms: number };
  /** Per-attempt time limit when a tool sets none; the outbound client's default otherwise. */
  defaultTimeoutMs?: number;
  /** Injectable for tests: waiting and jitter. */
  sleep?: Sleep;
  random?: () => number;
}

const RETRYING_EFFECTS: ReadonlySet<ToolEffect> = new Set(['read_only', 'idempotent']);
const DEFAULT_RETRY = { count: 2, backoff_ms: 250 };
/** Assumed per-attempt limit for the tool's overall deadline when the outbound client's default applies. */
const ASSUMED_TIMEOUT_MS = 30_000;

/**
 * The `http` implementation type: one templated HTTP call per tool call, through the SSRF-guarded
 * OutboundClient. Only read-only and idempotent tools retry on their own.
 */
export const createHttpExecutor = (deps: HttpExecutorDeps): ToolExecutor<HttpToolConfig> => {
  const call = async (
    request: OutboundRequest,
    config: HttpToolConfig,
    effect: ToolEffect,
    context: ToolExecuteContext,
  ) => {
    const policy = config.retry ?? deps.defaultRetry ?? DEFAULT_RETRY;
    const configured = config.timeout_ms ?? deps.defaultTimeoutMs;
    const attemptTimeout = configured === undefined ? undefined : Math.min(configured, MAX_TIMEOUT_MS);
    let attempts = 0;
    const response = await retry(
      async () => {
        attempts += 1;
        try {
          return await deps.outbound.request({
            ...request,
            timeoutMs: attemptTimeout,
            maxResponseBytes: Math.min(config.max_response_bytes ?? MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES),
            signal: context.signal,
          });
        } catch (error) {
          throw withAttempts(error, attempts);
        }
      },
      {
        retries: RETRYING_EFFECTS.has(effect) ? policy.count : 0,
        retryError: (error) => error instanceof OutboundNetworkError && error.transient,
        retryResult: (answer) => RETRYABLE_STATUSES.has(answer.status),
        retryAfterMs: (failure) =>
          'result' in failure ? cappedRetryAfter(failure.result.headers['retry-after']) : null,
        backoff: {
          baseDelayMs: policy.backoff_ms ?? DEFAULT_RETRY.backoff_ms,
          maxDelayMs: MAX_RETRY_WAIT_MS,
          random: deps.random,
        },
        signal: context.signal,
        sleep: deps.sleep,
      },
    );
    return { response, attempts };
  };

  const toDefinition: ToolExecutor<HttpToolConfig>['toDefinition'] = (tool) => {
    const config = tool.implementationConfig;
    const perAttempt = Math.min(config.timeout_ms ?? deps.defaultTimeoutMs ?? ASSUMED_TIMEOUT_MS, MAX_TIMEOUT_MS);
    const retries = RETRYING_EFFECTS.has(tool.effect) ? (config.retry ?? deps.defaultRetry ?? DEFAULT_RETRY).count : 0;
    const definition: ToolDefinition = {
      id: tool.id,
      version: tool.version,
      schema: tool.functionSchema,
      effect: tool.effect,
      timeoutMs: perAttempt * (retries + 1) + MAX_RETRY_WAIT_MS * retries,
      execute: async (context): Promise<ToolExecuteResult> => {
        const request = buildHttpRequest(config, context.params);
        const secrets = secretsOf(request, config.auth);
        try {
          const { response, attempts } = await call(request, config, tool.effect, context);
          const metadata = {
            status_code: response.status,
            response_bytes: response.bytes,
            attempts,
            final_url: response.finalUrl,
          };
          if (response.status < 200 || response.status > 299) throw httpStatusError(response, metadata);
          // The server may echo what it was sent (a debug endpoint, an error page): its credentials never go back.
          return redactSecretValues(formatHttpResponse(config, response, metadata), secrets);
        } catch (error) {
          throw withoutSecrets(error, secrets);
        }
      },
    };
    return definition;
  };

  return {
    type: 'http',
    configSchema: HTTP_TOOL_CONFIG_SCHEMA,
    configDescription:
      'Calls an HTTP API: a URL template with {param} placeholders, optional headers, query, JSON body and auth.',
    secretPaths: HTTP_SECRET_PATHS,
    validateConfig: validateHttpConfig,
    toDefinition,
  };
};

const withAttempts = (error: unknown, attempts: number): unknown => {
  if (error instanceof ToolExecutionError) {
    error.details.metadata = { ...error.details.metadata, attempts };
  }
  return error;
};

const withoutSecrets = (error: unknown, secrets: readonly string[]): unknown => {
  if (error instanceof ToolExecutionError) {
    error.message = redactSecretValues(error.message, secrets);
    Object.assign(error.details, redactSecretValues(error.details, secrets));
  }
  return error;
};
