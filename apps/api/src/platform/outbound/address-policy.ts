import ipaddr from 'ipaddr.js';

/**
 * The SSRF decision: may the server open a connection to this address? Only public unicast
 * addresses may be reached: private, loopback, link-local (cloud metadata 169.254.169.254),
 * unique-local, CGNAT, multicast, reserved and the IPv6 ranges that embed IPv4 (NAT64, 6to4,
 * Teredo, and the deprecated IPv4-compatible ::/96, which ipaddr.js calls unicast) are refused,
 * unless an allowlisted CIDR (development, or a deliberately internal receiver) covers the
 * address. IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 it is.
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
  let bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  // IPv6 in WHATWG's canonical form first: ipaddr.js reads a dotted tail (::127.0.0.1) as IPv4-mapped
  if (bare.includes(':')) {
    try {
      bare = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    } catch {
      return null;
    }
  }
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

/** IPv4-compatible IPv6 (::a.b.c.d, RFC 4291 2.5.5.1, deprecated): the IPv4 it embeds, else null. :: and ::1 have their own ranges. */
function ipv4Compatible(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | null {
  if (ip.kind() !== 'ipv6') return null;
  const parts = (ip as ipaddr.IPv6).parts;
  if (parts.slice(0, 6).some((p) => p !== 0) || (parts[6] === 0 && parts[7] <= 1)) return null;
  return ipaddr.fromByteArray((ip as ipaddr.IPv6).toByteArray().slice(12)) as ipaddr.IPv4;
}

/** Null when the address may be reached; otherwise why not (for logs and delivery errors). */
export function blockReason(address: string, allowlist: readonly Cidr[]): string | null {
  const ip = normalize(address);
  if (!ip) return `"${address}" is not an IP address`;
  if (allowlist.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))) return null;
  // refused whatever IPv4 it embeds (an allowlisted IPv4 included): a stack may route it anywhere
  const embedded = ipv4Compatible(ip);
  if (embedded) return `${ip.toString()} is an IPv4-compatible IPv6 address (${embedded.toString()}, ${embedded.range()})`;
  const range = ip.range();
  return range === 'unicast' ? null : `${ip.toString()} is a ${range} address`;
}

/** True when the address is covered by the allowlist (plain http:// is then tolerated outside production). */
export function isAllowlisted(address: string, allowlist: readonly Cidr[]): boolean {
  const ip = normalize(address);
  return !!ip && allowlist.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
}
