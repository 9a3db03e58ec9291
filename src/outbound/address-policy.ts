import ipaddr from 'ipaddr.js';
import { LruCache } from '../shared/lru-cache';
import { BLOCKED_RANGES, GLOBAL_UNICAST_IPV6, type BlockedRange } from './blocked-ranges';
import { ALLOW_PRIVATE_HINT, OutboundBlockedError } from './outbound-blocked-error';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

interface Verdict {
  range: BlockedRange;
  address: string;
}

const compile = (kind: 'ipv4' | 'ipv6'): [BlockedRange, Cidr][] =>
  BLOCKED_RANGES.map((range): [BlockedRange, Cidr] => [range, ipaddr.parseCIDR(range.cidr)]).filter(
    ([, cidr]) => cidr[0].kind() === kind,
  );

const IPV4_RANGES = compile('ipv4');
const IPV6_RANGES = compile('ipv6');
const GLOBAL_UNICAST = ipaddr.parseCIDR(GLOBAL_UNICAST_IPV6);
const MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96');
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const COMPATIBLE = ipaddr.parseCIDR('::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');

const ipv4At = (bytes: number[], offset: number, mask = 0): ipaddr.IPv4 =>
  new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => byte ^ mask));

const PASSED_CACHE_SIZE = 512;

const matches = (address: Address, cidr: Cidr): boolean => address.kind() === cidr[0].kind() && address.match(cidr);

/**
 * Decides whether an IP address may be contacted: refuses every non-public range,
 * looks inside IPv6 forms that embed an IPv4 address, and honours the operator's allowlist.
 */
export class AddressPolicy {
  private readonly allowed: Cidr[];
  /** Addresses that passed: each hop and each new connection to the same service asks again. */
  private readonly passed = new LruCache<string, true>(PASSED_CACHE_SIZE);

  /** @param allowPrivate CIDRs (or single addresses) operators deliberately open, e.g. `10.0.0.0/8`. */
  constructor(allowPrivate: readonly string[] = []) {
    this.allowed = allowPrivate.map((entry) => {
      const cidr = entry.includes('/') ? entry : `${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`;
      if (!ipaddr.isValidCIDR(cidr)) throw new Error(`invalid CIDR in outbound allowlist: ${entry}`);
      return ipaddr.parseCIDR(cidr);
    });
  }

  /** The refusal for `address`, or null when it may be contacted. */
  check(address: string): OutboundBlockedError | null {
    if (this.passed.get(address)) return null;
    const refusal = this.verdict(address);
    if (refusal === null) this.passed.set(address, true);
    return refusal;
  }

  private verdict(address: string): OutboundBlockedError | null {
    const parsed = this.parse(address);
    if (!parsed) return new OutboundBlockedError('invalid-url', `${address} is not a valid IP address`);
    const shown = parsed.toString();
    if (this.isAllowed(parsed)) return null;

    if (parsed.kind() === 'ipv4') {
      const verdict = this.ipv4Verdict(parsed as ipaddr.IPv4);
      return verdict && this.refuse(verdict, `${shown} is`);
    }

    const ipv6 = parsed as ipaddr.IPv6;
    for (const embedded of this.embeddedIpv4(ipv6)) {
      const verdict = this.ipv4Verdict(embedded);
      if (verdict) return this.refuse(verdict, `${shown} embeds ${embedded.toString()}, which is`);
    }
    // These forms are routed to their embedded IPv4 address, which passed above.
    if ([MAPPED, TRANSLATED, NAT64].some((cidr) => ipv6.match(cidr))) return null;

    const blocked = IPV6_RANGES.find(([, cidr]) => ipv6.match(cidr));
    if (blocked) return this.refuse({ range: blocked[0], address: shown }, `${shown} is`);
    if (!ipv6.match(GLOBAL_UNICAST)) {
      return this.refuse(
        {
          range: { cidr: GLOBAL_UNICAST_IPV6, rule: 'reserved', label: 'range outside global unicast' },
          address: shown,
        },
        `${shown} is`,
      );
    }
    return null;
  }

  private parse(address: string): Address | null {
    const bare = address.replace(/^\[|\]$/g, '');
    if (!ipaddr.isValid(bare)) return null;
    return ipaddr.parse(bare);
  }

  private isAllowed(address: Address): boolean {
    return this.allowed.some((cidr) => matches(address, cidr));
  }

  private ipv4Verdict(address: ipaddr.IPv4): Verdict | null {
    if (this.isAllowed(address)) return null;
    const blocked = IPV4_RANGES.find(([, cidr]) => address.match(cidr));
    return blocked ? { range: blocked[0], address: address.toString() } : null;
  }

  private embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
    const bytes = address.toByteArray();
    if (address.match(MAPPED) || address.match(TRANSLATED) || address.match(NAT64)) return [ipv4At(bytes, 12)];
    // `::` and `::1` sit inside ::/96 but are the IPv6 unspecified and loopback addresses, not embeddings.
    if (address.match(COMPATIBLE) && bytes.slice(12).some((byte, index) => byte > (index === 3 ? 1 : 0))) {
      return [ipv4At(bytes, 12)];
    }
    if (address.match(SIX_TO_FOUR)) return [ipv4At(bytes, 2)];
    if (address.match(TEREDO)) return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)];
    return [];
  }

  private refuse({ range }: Verdict, subject: string): OutboundBlockedError {
    const single = range.cidr.endsWith('/32') || range.cidr.endsWith('/128');
    const where = single ? `the ${range.label} ${range.cidr}` : `in ${range.label} ${range.cidr}`;
    const hint = range.rule === 'cloud-metadata' ? '' : `; allow it with ${ALLOW_PRIVATE_HINT}`;
    return new OutboundBlockedError(range.rule, `${subject} ${where}${hint}`);
  }
}
