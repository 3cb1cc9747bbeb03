import ipaddr from 'ipaddr.js';

/**
 * The SSRF decision: may the server open a connection to this address? Only public unicast
 * addresses may be reached: private, loopback, link-local (cloud metadata 169.254.169.254),
 * unique-local, CGNAT, multicast, reserved and the IPv6 ranges that embed IPv4 (NAT64, 6to4,
 * Teredo) are refused, unless an allowlisted CIDR (development, or a deliberately internal
 * receiver) covers the address. IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 it is.
 */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export function parseAllowlist(entries: string[]): { cidrs: Cidr[]; problems: string[] } {
  const cidrs: Cidr[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    try {
      if (entry.includes('/')) cidrs.push(ipaddr.parseCIDR(entry));
      else {
        const address = ipaddr.parse(entry);
        cidrs.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      }
    } catch {
      problems.push(`"${entry}" is not an IP address or CIDR (e.g. 127.0.0.1/32, ::1/128, 10.0.0.0/8)`);
    }
  }
  return { cidrs, problems };
}

function normalize(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

/** Null when the address may be reached; otherwise why not (for logs and delivery errors). */
export function blockReason(address: string, allowlist: readonly Cidr[]): string | null {
  const ip = normalize(address);
  if (!ip) return `"${address}" is not an IP address`;
  if (allowlist.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))) return null;
  const range = ip.range();
  return range === 'unicast' ? null : `${ip.toString()} is a ${range} address`;
}

/** True when the address is covered by the allowlist (plain http:// is then tolerated outside production). */
export function isAllowlisted(address: string, allowlist: readonly Cidr[]): boolean {
  const ip = normalize(address);
  return !!ip && allowlist.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}
