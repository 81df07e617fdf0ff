// Every path the JSON API serves. Public API routes are served at the root and under /api,
// identically; operational routes only at the root. The same list builds the OpenAPI document.
import type { HttpMethod, RouteDefinition } from "@/lib/http/router";
import { createRouter } from "@/lib/http/router";
import { createNextRouteHandlers, type NextRouteHandlers } from "@/lib/http/next-route";
import type { PublicRoute } from "@/lib/http/public-route";
import { getFavicon } from "./handlers/favicon";
import { getHealthz } from "./handlers/healthz";
import { getOpenApiDocument } from "./handlers/openapi";
import { postTelegramWebhook, TELEGRAM_WEBHOOK_PATH } from "./handlers/telegram-webhook";
import { publicRoutes } from "./public-routes";

export const operationalRoutes: RouteDefinition[] = [
  { path: "/healthz", handlers: { GET: getHealthz } },
  { path: "/openapi.json", handlers: { GET: getOpenApiDocument } },
  { path: "/favicon.ico", handlers: { GET: getFavicon } },
  { path: TELEGRAM_WEBHOOK_PATH, handlers: { POST: postTelegramWebhook } },
];

function groupByPath(routes: PublicRoute[]): RouteDefinition[] {
  const byPath = new Map<string, RouteDefinition>();
  for (const route of routes) {
    const definition = byPath.get(route.spec.path) ?? { path: route.spec.path, handlers: {} };
    definition.handlers[route.spec.method as HttpMethod] = route.handler;
    byPath.set(route.spec.path, definition);
  }
  return [...byPath.values()];
}

export function createApiRouter() {
  const publicRouter = createRouter(groupByPath(publicRoutes), ["", "/api"]);
  const operationalRouter = createRouter(operationalRoutes);
  return {
    has(path: string) {
      return operationalRouter.has(path) || publicRouter.has(path);
    },
    match(method: string, pathname: string) {
      const operational = operationalRouter.match(method, pathname);
      return operational.kind === "not-found" ? publicRouter.match(method, pathname) : operational;
    },
  };
}

let nextRouter: ReturnType<typeof createApiRouter> | undefined;

/** A route.ts file's handlers under Next.js: `path` is the table path it serves (none for the catch-all). */
export function routeHandlers(path?: string): NextRouteHandlers {
  nextRouter ??= createApiRouter();
  return createNextRouteHandlers(nextRouter, path);
}
