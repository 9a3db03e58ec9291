import OpenAI from 'openai';
import { ProviderError } from './provider';
import { retryAfterFromHeaders, RetryableProviderError } from './retry';
import { causeChainMessage } from '../shared/error-text';
import { isRecord } from '../shared/is-record';

/** 408 and 409 (lock timeout) are retried by OpenAI's own SDK too. */
const RETRYABLE_STATUSES = new Set([408, 409, 429]);

const isRetryableStatus = (status: number): boolean => RETRYABLE_STATUSES.has(status) || status >= 500;

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes of a Stainless-built SDK (`openai`, `@anthropic-ai/sdk`): same shapes, other classes. */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
}

/**
 * Turns whatever the OpenAI SDK or the network threw during one attempt into a `ProviderError`
 * whose message is the provider's own (e.g. "provider 401: Incorrect API key provided").
 * Call it only once cancellation has been ruled out.
 */
export function toProviderError(error: unknown, now: () => number = Date.now): ProviderError {
  return sdkErrorToProviderError(OpenAI, error, now);
}

/** `toProviderError` for any Stainless-built SDK; their errors carry `status`, `headers` and the body as `error`. */
export function sdkErrorToProviderError(
  sdk: SdkErrorClasses,
  error: unknown,
  now: () => number = Date.now,
): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new RetryableProviderError('provider timed out before answering', null);
  }
  if (error instanceof sdk.APIConnectionError) {
    return new RetryableProviderError(`provider connection failed: ${causeChainMessage(error)}`, null);
  }
  if (error instanceof sdk.APIError && 'status' in error && 'headers' in error && 'error' in error) {
    // The SDK's generics narrow to `any` here; read each field as what it really may be.
    const status: unknown = error.status;
    const headers: unknown = error.headers;
    const message = providerMessage(error.error, error.message, status);
    if (typeof status !== 'number') {
      // An `{"error": …}` object inside the stream: the provider gave up mid-answer.
      return new RetryableProviderError(`provider stream error: ${message}`, null);
    }
    const text = `provider ${status}: ${message}`;
    const retryAfterMs = headers instanceof Headers ? retryAfterFromHeaders(headers, now) : null;
    return isRetryableStatus(status)
      ? new RetryableProviderError(text, status, retryAfterMs)
      : new ProviderError(text, status, false);
  }
  if (error instanceof SyntaxError) {
    return new ProviderError(`provider sent a stream chunk that is not JSON: ${error.message}`, null, false);
  }
  // undici reports a connection cut mid-body as a TypeError ("terminated") with the socket error as cause.
  return new RetryableProviderError(`provider connection lost: ${causeChainMessage(error)}`, null);
}

/**
 * The provider's own words: `message` of an OpenAI-shaped error, `error.message` of an Anthropic-shaped body,
 * else the SDK message minus its status.
 */
function providerMessage(body: unknown, sdkMessage: string, status: unknown): string {
  if (typeof body === 'string' && body !== '') return body;
  if (isRecord(body) && typeof body.message === 'string') return body.message;
  if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  const prefix = typeof status === 'number' ? `${status} ` : '';
  return sdkMessage.startsWith(prefix) ? sdkMessage.slice(prefix.length) : sdkMessage;
}
