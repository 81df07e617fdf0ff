// The TCP peer's address for route handlers running under Next.js. Next hands a route handler a
// Request without the socket, and its only hint, `x-forwarded-for`, is set to the socket's address
// only when the client sent none (base-server: `req.headers['x-forwarded-for'] ??= ...`), so a
// client could forge it. Instead each request's header object carries the socket's address under
// a name of our own, overwriting whatever the client sent under that name. Node builds
// IncomingMessage#headers lazily, on first read, from the raw header lines through
// IncomingMessage#_addHeaderLine, which is wrapped here: every header object built after
// installation carries the stamp, including those of requests that arrived before it. It is
// installed by instrumentation.ts (once per Next server process, before `next start` serves),
// again when a route file loads (lib/http/next-route.ts), and, because `next dev` reads a request's
// headers before it compiles either, preloaded into the dev server by `npm run dev`.
import { PEER_ADDRESS_HEADER, peerAddressNonce } from "./peer-address-stamp.mjs";

export { installPeerAddressStamp, PEER_ADDRESS_HEADER } from "./peer-address-stamp.mjs";

export class PeerAddressUnknownError extends Error {
  constructor() {
    super(`no ${PEER_ADDRESS_HEADER} header: the peer-address stamp (lib/http/peer-address.ts) is not installed`);
  }
}

/**
 * The socket address in a stamp header's value, or null when there is no stamp or it lacks this
 * process's prefix (a request whose headers were read before the stamp was installed).
 */
export function peerAddressFromStamp(value: string | null | undefined): string | null {
  const nonce = peerAddressNonce();
  if (value == null || nonce === undefined || !value.startsWith(`${nonce} `)) return null;
  return value.slice(nonce.length + 1);
}

/** The stamped socket address; throws when the stamp is missing or not ours rather than trust the client. */
export function readPeerAddress(request: Request): string {
  const address = peerAddressFromStamp(request.headers.get(PEER_ADDRESS_HEADER));
  if (address === null) throw new PeerAddressUnknownError();
  return address;
}
