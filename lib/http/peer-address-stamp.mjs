// Plain JavaScript so that `npm run dev` can preload it into Next's dev server with
// `node --import` before the server reads any request (lib/http/peer-address.ts says why).
import http from "node:http";

export const PEER_ADDRESS_HEADER = "x-topup-peer-address";

const INSTALLED = Symbol.for("topup.peerAddressStamp");

export function installPeerAddressStamp() {
  const proto = http.IncomingMessage.prototype;
  if (proto[INSTALLED]) return;
  const addHeaderLine = proto._addHeaderLine;
  if (typeof addHeaderLine !== "function") {
    throw new Error("this Node.js has no IncomingMessage#_addHeaderLine to stamp the peer address with");
  }
  proto._addHeaderLine = function (field, value, dest) {
    if (field.length !== PEER_ADDRESS_HEADER.length || field.toLowerCase() !== PEER_ADDRESS_HEADER) {
      addHeaderLine.call(this, field, value, dest);
    }
    dest[PEER_ADDRESS_HEADER] = this.socket?.remoteAddress ?? "";
  };
  proto[INSTALLED] = true;
}
