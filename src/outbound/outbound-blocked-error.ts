import { ToolForbiddenError } from '../shared/tool-errors';

/** Which guard rule refused an outbound request. */
export type OutboundBlockRule =
  | 'invalid-url'
  | 'scheme'
  | 'userinfo'
  | 'localhost'
  | 'cloud-metadata'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade-nat'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'broadcast'
  | 'benchmarking'
  | 'documentation'
  | 'reserved'
  | 'domain-policy';

/** Env variable operators set to open the private-address allowlist (named in refusals only). */
export const ALLOW_PRIVATE_HINT = 'OUTBOUND_ALLOW_PRIVATE';

/** An outbound request refused by the SSRF guard; `rule` names the check that fired. */
export class OutboundBlockedError extends ToolForbiddenError {
  constructor(
    readonly rule: OutboundBlockRule,
    message: string,
  ) {
    super(`blocked: ${message}`, { metadata: { blocked_rule: rule } });
    this.name = 'OutboundBlockedError';
  }
}
