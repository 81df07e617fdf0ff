// The lean host's path router over the route table: static paths by map lookup, ":param" segments by
// a scan of the few patterns that have them. Under `next start`, Next's own router does this job.
import type { RequestObservation } from "../observability/observe-request";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

/** What a handler gets beside the request: Next.js passes `params` alone; the lean host adds the peer. */
export interface RouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
  /** The TCP peer's address; absent under Next.js, which hands a route handler no socket. */
  peerIp?: string;
  /** The request's id, log line and metrics, when the host observes it (the lean host does). */
  observation?: RequestObservation;
}

export type RouteHandler = (request: Request, context: RouteContext) => Promise<Response> | Response;

export interface RouteDefinition {
  path: string;
  handlers: Partial<Record<HttpMethod, RouteHandler>>;
}

/** `route` is the route's path pattern ("/orders/:orderId"), the same at the root and under /api. */
export type RouteMatch =
  | { kind: "handler"; handler: RouteHandler; params: Record<string, string>; route: string }
  | { kind: "method-not-allowed"; allow: string[]; route: string }
  | { kind: "not-found" };

interface CompiledPattern {
  segments: string[];
  route: RouteDefinition;
}

export function createRouter(routes: RouteDefinition[], prefixes: string[] = [""]) {
  const staticRoutes = new Map<string, RouteDefinition>();
  const patterns: CompiledPattern[] = [];
  for (const route of routes) {
    for (const prefix of prefixes) {
      const path = prefix + route.path;
      if (path.includes("/:")) patterns.push({ segments: path.split("/"), route });
      else staticRoutes.set(path, route);
    }
  }

  function find(pathname: string): { route: RouteDefinition; params: Record<string, string> } | undefined {
    const normalised = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    const direct = staticRoutes.get(normalised);
    if (direct) return { route: direct, params: {} };
    const parts = normalised.split("/");
    for (const pattern of patterns) {
      if (pattern.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (const [i, segment] of pattern.segments.entries()) {
        const part = parts[i];
        if (segment.startsWith(":")) {
          if (!part) {
            matched = false;
            break;
          }
          try {
            params[segment.slice(1)] = decodeURIComponent(part);
          } catch {
            params[segment.slice(1)] = part;
          }
        } else if (segment !== part) {
          matched = false;
          break;
        }
      }
      if (matched) return { route: pattern.route, params };
    }
    return undefined;
  }

  return {
    match(method: string, pathname: string): RouteMatch {
      const found = find(pathname);
      if (!found) return { kind: "not-found" };
      const handler =
        found.route.handlers[method as HttpMethod] ?? (method === "HEAD" ? found.route.handlers.GET : undefined);
      const route = found.route.path;
      if (!handler) return { kind: "method-not-allowed", allow: Object.keys(found.route.handlers), route };
      return { kind: "handler", handler, params: found.params, route };
    },
  };
}
