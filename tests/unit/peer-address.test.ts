// The client address under `next start` rests on Node's internal IncomingMessage#_addHeaderLine
// (lib/http/peer-address.ts). This runs a real node:http server with the stamp installed: if a
// Node.js release changes that internal, these fail instead of IP allowlists silently breaking.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installPeerAddressStamp, PEER_ADDRESS_HEADER, peerAddressFromStamp } from "@/lib/http/peer-address";

let server: http.Server;
let port: number;

beforeAll(async () => {
  installPeerAddressStamp();
  server = http.createServer((req, res) => {
    const stamp = req.headers[PEER_ADDRESS_HEADER];
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        stamped: peerAddressFromStamp(typeof stamp === "string" ? stamp : undefined),
        socket: req.socket.remoteAddress,
        host: req.headers.host,
        custom: req.headers["x-custom"],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("stamps every request's headers with its socket address", async () => {
  const seen = await (await fetch(`http://127.0.0.1:${port}/`, { headers: { "x-custom": "kept" } })).json();
  expect(seen.stamped).toBe("127.0.0.1");
  expect(seen.stamped).toBe(seen.socket);
  // Other headers are untouched.
  expect(seen.host).toBe(`127.0.0.1:${port}`);
  expect(seen.custom).toBe("kept");
});

it("overwrites a stamp the client sent itself, in any letter case", async () => {
  for (const name of [PEER_ADDRESS_HEADER, "X-Topup-Peer-Address"]) {
    const seen = await (await fetch(`http://127.0.0.1:${port}/`, { headers: { [name]: "203.0.113.7" } })).json();
    expect(seen.stamped).toBe("127.0.0.1");
  }
});

it("trusts no stamp without this process's prefix", () => {
  expect(peerAddressFromStamp("203.0.113.7")).toBeNull();
  expect(peerAddressFromStamp(undefined)).toBeNull();
});
