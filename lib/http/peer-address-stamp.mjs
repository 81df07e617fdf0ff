// Plain JavaScript so that `npm run dev` can preload it into Next's dev server with
// `node --import` before the server reads any request (lib/http/peer-address.ts says why).
import { randomBytes } from "node:crypto";
import http from "node:http";

export const PEER_ADDRESS_HEADER = "x-topup-peer-address";

const INSTALLED = Symbol.for("topup.peerAddressStamp");
// A random per-process prefix of every stamp. Next bundles its own copy of this module into the
// route chunks, so the value lives on the prototype, shared by every copy. A header object Node
// built before the stamp was installed (`next start` reads the Host header of a request that
// arrives while it is still starting) carries no stamp, or the client's own value under our name:
// neither has the prefix, so neither is trusted.
const NONCE = Symbol.for("topup.peerAddressNonce");

/** The prefix stamps of this process carry; undefined until the stamp is installed. */
export function peerAddressNonce() {
  return http.IncomingMessage.prototype[NONCE];
}

export function installPeerAddressStamp() {
  const proto = http.IncomingMessage.prototype;
  if (proto[INSTALLED]) return;
  const addHeaderLine = proto._addHeaderLine;
  if (typeof addHeaderLine !== "function") {
    throw new Error("this Node.js has no IncomingMessage#_addHeaderLine to stamp the peer address with");
  }
  const nonce = randomBytes(12).toString("hex");
  proto[NONCE] = nonce;
  proto._addHeaderLine = function (field, value, dest) {
    if (field.length !== PEER_ADDRESS_HEADER.length || field.toLowerCase() !== PEER_ADDRESS_HEADER) {
      addHeaderLine.call(this, field, value, dest);
    }
    dest[PEER_ADDRESS_HEADER] = `${nonce} ${this.socket?.remoteAddress ?? ""}`;
  };
  proto[INSTALLED] = true;
}
