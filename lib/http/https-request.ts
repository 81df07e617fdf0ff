// Whether a request reached us over HTTPS, for HSTS and the session cookie's Secure flag.
import { ipInAnyRange } from "../net/ip";
import { trustedProxyRanges } from "./client-address";
import { PEER_ADDRESS_HEADER, peerAddressFromStamp } from "./peer-address";

/**
 * True when the client reached us over HTTPS: neither host terminates TLS, so that is a
 * TRUSTED_PROXIES peer saying so in X-Forwarded-Proto (its first entry: the client-facing hop).
 */
export function isHttpsRequest(header: (name: string) => string | null, peerIp?: string): boolean {
  const proto = header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (proto !== "https") return false;
  const peer = peerIp ?? peerAddressFromStamp(header(PEER_ADDRESS_HEADER));
  return peer !== null && ipInAnyRange(peer, trustedProxyRanges());
}
