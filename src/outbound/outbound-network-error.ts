import { ToolExecutionError } from '../shared/tool-errors';

/** The request never produced a response (refused, reset, timed out, DNS failure). */
export class OutboundNetworkError extends ToolExecutionError {
  constructor(
    message: string,
    /** Worth trying again (timeouts, resets, temporary DNS failures); false for e.g. an unknown host. */
    readonly transient: boolean,
    readonly code?: string,
  ) {
    super(message, { metadata: code ? { network_error: code } : {} });
    this.name = 'OutboundNetworkError';
  }
}
