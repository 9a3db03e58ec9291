import type { OutboundBlockRule } from './outbound-blocked-error';

/** A refused CIDR, the rule it belongs to and how a refusal describes it. */
export interface BlockedRange {
  cidr: string;
  rule: OutboundBlockRule;
  label: string;
}

// IPv4, then IPv6; within each family most specific first: the first match names the rule.
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  { cidr: '169.254.169.254/32', rule: 'cloud-metadata', label: 'cloud metadata address' },
  { cidr: '255.255.255.255/32', rule: 'broadcast', label: 'broadcast address' },
  { cidr: '0.0.0.0/8', rule: 'unspecified', label: 'unspecified range' },
  { cidr: '10.0.0.0/8', rule: 'private', label: 'private range' },
  { cidr: '100.64.0.0/10', rule: 'carrier-grade-nat', label: 'carrier-grade NAT range' },
  { cidr: '127.0.0.0/8', rule: 'loopback', label: 'loopback range' },
  { cidr: '169.254.0.0/16', rule: 'link-local', label: 'link-local range' },
  { cidr: '172.16.0.0/12', rule: 'private', label: 'private range' },
  { cidr: '192.0.0.0/24', rule: 'reserved', label: 'IETF protocol assignments range' },
  { cidr: '192.0.2.0/24', rule: 'documentation', label: 'documentation range' },
  { cidr: '192.88.99.0/24', rule: 'reserved', label: '6to4 relay anycast range' },
  { cidr: '192.168.0.0/16', rule: 'private', label: 'private range' },
  { cidr: '198.18.0.0/15', rule: 'benchmarking', label: 'benchmarking range' },
  { cidr: '198.51.100.0/24', rule: 'documentation', label: 'documentation range' },
  { cidr: '203.0.113.0/24', rule: 'documentation', label: 'documentation range' },
  { cidr: '224.0.0.0/4', rule: 'multicast', label: 'multicast range' },
  { cidr: '240.0.0.0/4', rule: 'reserved', label: 'reserved range' },
  { cidr: 'fd00:ec2::254/128', rule: 'cloud-metadata', label: 'cloud metadata address' },
  { cidr: '::/128', rule: 'unspecified', label: 'unspecified address' },
  { cidr: '::1/128', rule: 'loopback', label: 'loopback address' },
  { cidr: '::/96', rule: 'reserved', label: 'deprecated IPv4-compatible range' },
  { cidr: '64:ff9b:1::/48', rule: 'private', label: 'local-use NAT64 range' },
  { cidr: '100::/64', rule: 'reserved', label: 'discard-only range' },
  { cidr: '2001:2::/48', rule: 'benchmarking', label: 'benchmarking range' },
  { cidr: '2001:10::/28', rule: 'reserved', label: 'ORCHID range' },
  { cidr: '2001:20::/28', rule: 'reserved', label: 'ORCHIDv2 range' },
  { cidr: '2001:db8::/32', rule: 'documentation', label: 'documentation range' },
  { cidr: 'fc00::/7', rule: 'unique-local', label: 'unique local range' },
  { cidr: 'fe80::/10', rule: 'link-local', label: 'link-local range' },
  { cidr: 'fec0::/10', rule: 'reserved', label: 'deprecated site-local range' },
  { cidr: 'ff00::/8', rule: 'multicast', label: 'multicast range' },
];

/** Only global unicast IPv6 is reachable on purpose; anything outside it is refused. */
export const GLOBAL_UNICAST_IPV6 = '2000::/3';
