// The client's address, one rule for the API on both hosts and for the dashboard's sign-in throttle.
import { env } from "../config/env";
import { normaliseIp, parseTrustedProxies, resolveClientIp } from "../net/ip";
import { PEER_ADDRESS_HEADER, PeerAddressUnknownError, peerAddressFromStamp } from "./peer-address";

/**
 * The address in CLIENT_IP_HEADER when that is set and the request carries one (the platform in
 * front of the service writes it); otherwise the TCP peer, given by the lean host or read from the
 * peer-address stamp under Next, with X-Forwarded-For believed only from a TRUSTED_PROXIES peer.
 */
export function resolveRequestClientIp(header: (name: string) => string | null, peerIp?: string): string {
  const config = env();
  if (config.clientIpHeader) {
    const fromPlatform = normaliseIp(header(config.clientIpHeader) ?? "");
    if (fromPlatform) return fromPlatform;
  }
  const peer = peerIp ?? peerAddressFromStamp(header(PEER_ADDRESS_HEADER));
  if (peer === null) throw new PeerAddressUnknownError();
  return resolveClientIp(peer, header("x-forwarded-for"), trustedProxyRanges());
}

let ranges: string[] | undefined;

/** TRUSTED_PROXIES as CIDR ranges (the configuration has already refused a bad entry). */
export function trustedProxyRanges(): string[] {
  ranges ??= parseTrustedProxies(env().trustedProxies);
  return ranges;
}
