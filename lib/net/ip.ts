// Client IP resolution and allowlist matching, shared by the API wrapper, GET /my-ip and the bot's
// /ip commands. IPv4, IPv6, IPv4-mapped IPv6 (::ffff:1.2.3.4 is treated as 1.2.3.4) and CIDR.
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an address, unwrapping IPv4-mapped IPv6; undefined when it is not an IP address. */
export function parseIp(input: string): Address | undefined {
  const text = input.trim();
  // Strict forms only: ipaddr.js would also accept classful shorthands such as "1.2.3" or hex.
  const valid = text.includes(":") ? ipaddr.IPv6.isValid(text) : ipaddr.IPv4.isValidFourPartDecimal(text);
  if (!valid) return undefined;
  const address = ipaddr.parse(text);
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

export function normaliseIp(input: string): string | undefined {
  return parseIp(input)?.toString();
}

/**
 * Normalises an allowlist entry ("203.0.113.7", "203.0.113.0/24", "2001:db8::/32") to CIDR form
 * with the network address ("203.0.113.7/32"); undefined when it is neither an address nor a range.
 */
export function normaliseCidr(input: string): string | undefined {
  const text = input.trim();
  if (!text.includes("/")) {
    const address = parseIp(text);
    if (!address) return undefined;
    return `${address.toString()}/${address.kind() === "ipv4" ? 32 : 128}`;
  }
  const [addressText = "", bitsText] = text.split("/");
  if (!/^\d{1,3}$/.test(bitsText ?? "")) return undefined;
  const address = parseIp(addressText);
  if (!address) return undefined;
  let bits = Number(bitsText);
  // A mapped IPv6 range (::ffff:10.0.0.0/104) becomes the IPv4 range it covers.
  if (address.kind() === "ipv4" && ipaddr.IPv6.isValid(addressText) && bits >= 96) bits -= 96;
  const max = address.kind() === "ipv4" ? 32 : 128;
  if (bits > max) return undefined;
  const network =
    address.kind() === "ipv4"
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

/** True when ip falls in any of the (normalised) CIDR entries. */
export function ipInAnyRange(ip: string, cidrs: readonly string[]): boolean {
  const address = parseIp(ip);
  if (!address) return false;
  for (const cidr of cidrs) {
    try {
      const [network, bits] = ipaddr.parseCIDR(cidr);
      if (network.kind() === address.kind() && address.match([network, bits] as [Address, number])) return true;
    } catch {
      // An unparsable stored entry matches nothing.
    }
  }
  return false;
}

/**
 * One X-Forwarded-For entry as proxies write it: an address, or an address with the client's port
 * ("203.0.113.9:4431", "[2001:db8::1]:443", "[2001:db8::1]"). A bare IPv6 address is not cut at
 * its last colon: only an IPv4 address takes a port without brackets.
 */
export function parseForwardedHop(entry: string): string | undefined {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return bracketed[1]?.includes(":") ? normaliseIp(bracketed[1]) : undefined;
  const v4WithPort = /^([0-9.]+):(\d{1,5})$/.exec(text);
  if (v4WithPort?.[1]) return normaliseIp(v4WithPort[1]);
  return normaliseIp(text);
}

/**
 * The client's IP: the socket's peer address, unless that peer is a trusted proxy, in which case
 * X-Forwarded-For is read from the right, skipping trusted proxies, to the first untrusted hop.
 * A forged X-Forwarded-For from an untrusted peer is ignored.
 */
export function resolveClientIp(
  peerIp: string,
  forwardedFor: string | null,
  trustedProxies: readonly string[],
): string {
  const peer = normaliseIp(peerIp) ?? peerIp;
  if (!forwardedFor || trustedProxies.length === 0 || !ipInAnyRange(peer, trustedProxies)) return peer;
  const hops = forwardedFor
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  for (const entry of hops.toReversed()) {
    const hop = parseForwardedHop(entry);
    if (!hop) return peer; // garbage in the chain: trust nothing beyond the peer
    if (!ipInAnyRange(hop, trustedProxies)) return hop;
  }
  return (hops[0] && parseForwardedHop(hops[0])) ?? peer;
}

/**
 * Normalises TRUSTED_PROXIES entries; the first invalid entry is named, never silently dropped.
 * The web server and `npm start` call it before they listen, so a bad entry stops the start with
 * its name instead of failing every request.
 */
export function parseTrustedProxies(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    const cidr = normaliseCidr(entry);
    if (!cidr) {
      throw new Error(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (expected e.g. 10.0.0.5, 10.0.0.0/8 or 2001:db8::/32, comma-separated, no ports)`,
      );
    }
    return cidr;
  });
}
