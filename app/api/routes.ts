// The lean host's route table (scripts/serve.ts): the public routes at the root and under /api, and
// the operational routes at their own paths only. Under `next start` the same route files serve.
import type { RouteDefinition } from "@/lib/http/router";
import { createRouter } from "@/lib/http/router";
import * as healthz from "@/app/healthz/route";
import * as openapi from "@/app/openapi.json/route";
import * as postman from "@/app/postman.json/route";
import * as favicon from "@/app/favicon.ico/route";
import * as metrics from "@/app/metrics/route";
import * as telegramWebhook from "./telegram/webhook/route";
import { TELEGRAM_WEBHOOK_PATH } from "@/bot/webhook-path";
import { publicRoutes } from "./public-routes";

export const operationalRoutes: RouteDefinition[] = [
  { path: "/healthz", handlers: { GET: healthz.GET } },
  { path: "/openapi.json", handlers: { GET: openapi.GET } },
  { path: "/postman.json", handlers: { GET: postman.GET } },
  { path: "/favicon.ico", handlers: { GET: favicon.GET } },
  { path: "/metrics", handlers: { GET: metrics.GET } },
  { path: TELEGRAM_WEBHOOK_PATH, handlers: { POST: telegramWebhook.POST } },
];

function groupByPath(): RouteDefinition[] {
  const byPath = new Map<string, RouteDefinition>();
  for (const route of publicRoutes) {
    const definition = byPath.get(route.spec.path) ?? { path: route.spec.path, handlers: {} };
    definition.handlers[route.spec.method] = route;
    byPath.set(route.spec.path, definition);
  }
  return [...byPath.values()];
}

export function createApiRouter() {
  const publicRouter = createRouter(groupByPath(), ["", "/api"]);
  const operationalRouter = createRouter(operationalRoutes);
  return {
    match(method: string, pathname: string) {
      const operational = operationalRouter.match(method, pathname);
      return operational.kind === "not-found" ? publicRouter.match(method, pathname) : operational;
    },
  };
}
