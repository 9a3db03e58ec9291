import { isIPv4 } from 'node:net';
import type { AddressPolicy } from './address-policy';
import { redactUrl } from '../shared/secrets';
import { OutboundBlockedError } from './outbound-blocked-error';

const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Parses a URL for an outbound request; an unparsable URL is refused like any other. */
export const parseOutboundUrl = (raw: string, base?: string): URL => {
  try {
    return new URL(raw, base);
  } catch {
    throw new OutboundBlockedError('invalid-url', `"${redactUrl(raw).slice(0, 200)}" is not a valid absolute URL`);
  }
};

/**
 * Checks what can be decided from the URL alone: scheme, credentials, well-known names and IP literals
 * (connections to literals skip DNS, so the connect-time lookup never sees them).
 * Host names are checked again, per resolved address, when the socket connects.
 */
export const checkOutboundUrl = (url: URL, policy: AddressPolicy): void => {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundBlockedError('scheme', `scheme "${url.protocol}" is not allowed; only http and https are`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundBlockedError('userinfo', 'URLs with credentials (user:password@host) are not allowed');
  }
  const host = url.hostname.replace(/\.+$/, '');
  if (host.startsWith('[') || isIPv4(host)) {
    const refusal = policy.check(host);
    if (refusal) throw refusal;
    return;
  }
  if (METADATA_HOSTS.has(host)) {
    throw new OutboundBlockedError('cloud-metadata', `${host} is a cloud metadata host`);
  }
  if ((host === 'localhost' || host.endsWith('.localhost')) && policy.check('127.0.0.1') !== null) {
    throw new OutboundBlockedError('localhost', `${host} always means this machine (loopback)`);
  }
};
