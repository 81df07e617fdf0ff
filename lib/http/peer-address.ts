// The TCP peer's address for route handlers running under Next.js, which hands a route handler a
// Request without the socket. Its only hint, `x-forwarded-for`, is set to the socket's address only
// when the client sent none, so a client could forge it. Instead each request's header object
// carries the socket's address under a name of our own, overwriting whatever the client sent under
// that name: Node builds IncomingMessage#headers on first read through the internal
// IncomingMessage#_addHeaderLine, which is wrapped here. next.config.ts installs it, and nothing
// else does; the lean host needs none (it hands handlers the socket's address).
// tests/unit/peer-address.test.ts fails on a Node.js whose internals no longer behave as this assumes.
import { randomBytes } from "node:crypto";
import http from "node:http";

export const PEER_ADDRESS_HEADER = "x-topup-peer-address";

type HeaderLineAdder = (
  this: http.IncomingMessage,
  field: string,
  value: string,
  dest: Record<string, unknown>,
) => void;
type StampedPrototype = http.IncomingMessage & { _addHeaderLine?: HeaderLineAdder; [NONCE]?: string };

// A random per-process prefix of every stamp. Next bundles its own copy of this module into the
// route chunks, so the value lives on the prototype, shared by every copy. A header object Node
// built before installation (a request that arrived while `next start` was starting) has no stamp
// with the prefix, so it is never trusted.
const NONCE = Symbol.for("topup.peerAddressNonce");

export class PeerAddressUnknownError extends Error {
  constructor() {
    super(`no ${PEER_ADDRESS_HEADER} header: the peer-address stamp (lib/http/peer-address.ts) is not installed`);
  }
}

function prototype(): StampedPrototype {
  return http.IncomingMessage.prototype as StampedPrototype;
}

/** Stamps each request's socket address into its headers. Idempotent. */
export function installPeerAddressStamp(): void {
  const proto = prototype();
  if (proto[NONCE]) return;
  const addHeaderLine = proto._addHeaderLine;
  if (typeof addHeaderLine !== "function") {
    throw new Error("this Node.js has no IncomingMessage#_addHeaderLine to stamp the peer address with");
  }
  const nonce = randomBytes(12).toString("hex");
  proto._addHeaderLine = function (field, value, dest) {
    if (field.length !== PEER_ADDRESS_HEADER.length || field.toLowerCase() !== PEER_ADDRESS_HEADER) {
      addHeaderLine.call(this, field, value, dest);
    }
    dest[PEER_ADDRESS_HEADER] = `${nonce} ${this.socket?.remoteAddress ?? ""}`;
  };
  proto[NONCE] = nonce;
}

/**
 * The socket address in a stamp header's value, or null when there is no stamp or it lacks this
 * process's prefix (a request whose headers were read before the stamp was installed).
 */
export function peerAddressFromStamp(value: string | null | undefined): string | null {
  const nonce = prototype()[NONCE];
  if (value == null || nonce === undefined || !value.startsWith(`${nonce} `)) return null;
  return value.slice(nonce.length + 1);
}
