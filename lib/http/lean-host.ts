// The process's HTTP server. Public API paths go straight to their Web-standard handlers through
// @hono/node-server's request listener (no Next routing on the hot path); the dashboard, the docs
// page and next-auth go to Next's request handler in the same process. Anything else answers the
// catalogue's JSON 404, never an HTML page.
import http from "node:http";
import { getRequestListener, type HttpBindings } from "@hono/node-server";
import { errorResponse } from "./errors";
import type { createRouter } from "./router";

export type NodeHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

/** Paths that belong to Next (pages, assets, next-auth); everything else is the JSON API. */
export const NEXT_PATH_PREFIXES = ["/admin", "/docs", "/api/auth", "/_next", "/favicon.ico"];

export function isNextPath(pathname: string): boolean {
  return NEXT_PATH_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(prefix + "/"));
}

export function createHttpServer(options: {
  router: ReturnType<typeof createRouter>;
  next?: NodeHandler;
  onError?: (error: unknown) => void;
}): http.Server {
  const apiListener = getRequestListener(
    async (request: Request, bindings) => {
      const incoming = (bindings as HttpBindings).incoming;
      const url = new URL(request.url);
      const match = options.router.match(request.method, url.pathname);
      try {
        if (match.kind === "not-found") return errorResponse("NOT_FOUND");
        if (match.kind === "method-not-allowed") {
          return errorResponse("METHOD_NOT_ALLOWED", { headers: { allow: match.allow.join(", ") } });
        }
        return await match.handler(request, { params: match.params, peerIp: incoming.socket.remoteAddress ?? "" });
      } catch (error) {
        options.onError?.(error);
        return errorResponse("INTERNAL_ERROR");
      }
    },
    {
      // A request the adapter itself cannot read (aborted, malformed) still gets a JSON answer.
      errorHandler: () => errorResponse("INTERNAL_ERROR"),
    },
  );

  return http.createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?")[0];
    if (options.next && isNextPath(pathname)) {
      void options.next(req, res);
      return;
    }
    void apiListener(req, res);
  });
}
