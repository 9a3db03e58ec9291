import { ToolExecutionError } from '../shared/tool-errors';
import { OutboundNetworkError } from './outbound-network-error';
import type { RequestDeadline } from './request-deadline';
import { errorMessage } from '../shared/error-text';

/** The error and its causes. Duck-typed: Node's own errors fail `instanceof Error` under Jest (another realm). */
function* causeChain(error: unknown): Generator<{ code?: unknown; cause?: unknown }> {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 10; depth += 1) {
    const link = current as { code?: unknown; cause?: unknown };
    yield link;
    current = link.cause;
  }
}

const codeOf = (error: unknown): string | undefined => {
  for (const { code } of causeChain(error)) {
    if (typeof code === 'string' && code !== '') return code;
  }
  return undefined;
};

const findToolError = (error: unknown): ToolExecutionError | undefined => {
  for (const link of causeChain(error)) {
    if (link instanceof ToolExecutionError) return link;
  }
  return undefined;
};

const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT|UNABLE_TO_)/;

/**
 * Turns whatever Node threw into a ToolExecutionError the model can act on:
 * never a raw Node error, never a stack, always the host that was being contacted.
 */
export const toOutboundError = (error: unknown, target: URL, deadline: RequestDeadline): ToolExecutionError => {
  const toolError = findToolError(error);
  if (toolError) return toolError;
  if (deadline.reason === 'timeout') {
    return new OutboundNetworkError(
      `request to ${target.host} timed out after ${deadline.timeoutMs} ms`,
      true,
      'TIMEOUT',
    );
  }
  if (deadline.reason === 'aborted') return new ToolExecutionError(`request to ${target.host} was aborted`);

  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const hostPort = `${target.hostname}:${port}`;
  const code = codeOf(error);
  switch (code ?? '') {
    case 'ECONNREFUSED':
      return new OutboundNetworkError(`connection refused by ${hostPort}`, true, code);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return new OutboundNetworkError(`could not resolve host ${target.hostname}`, code === 'EAI_AGAIN', code);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return new OutboundNetworkError(`connection to ${hostPort} was closed unexpectedly`, true, code);
    case 'ETIMEDOUT':
    case 'ECONNABORTED':
      return new OutboundNetworkError(`connection to ${hostPort} timed out`, true, code);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new OutboundNetworkError(`host ${hostPort} is unreachable`, true, code);
    case 'ERR_INVALID_CHAR':
    case 'ERR_INVALID_HTTP_TOKEN':
      return new ToolExecutionError('request has an invalid header name or value');
    default:
      break;
  }
  const message = errorMessage(error);
  if (code && TLS_CODES.test(code)) return new ToolExecutionError(`TLS error talking to ${hostPort}: ${message}`);
  return new ToolExecutionError(`request to ${hostPort} failed: ${message}${code ? ` (${code})` : ''}`);
};
