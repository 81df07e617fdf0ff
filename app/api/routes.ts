// Every path the JSON API serves. Public API routes are served at the root and under /api,
// identically; operational routes only at the root.
import type { RouteDefinition } from "@/lib/http/router";
import { createRouter } from "@/lib/http/router";
import { getHealthz } from "./handlers/healthz";

export const operationalRoutes: RouteDefinition[] = [{ path: "/healthz", handlers: { GET: getHealthz } }];

export const publicApiRoutes: RouteDefinition[] = [];

export function createApiRouter() {
  const publicRouter = createRouter(publicApiRoutes, ["", "/api"]);
  const operationalRouter = createRouter(operationalRoutes);
  return {
    match(method: string, pathname: string) {
      const operational = operationalRouter.match(method, pathname);
      return operational.kind === "not-found" ? publicRouter.match(method, pathname) : operational;
    },
  };
}
