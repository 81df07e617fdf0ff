// /api/catalog under Next.js (/catalog too, by the rewrite in next.config.ts). The handler,
// its schemas and docs are in the route table (app/api/routes.ts).
import { routeHandlers } from "@/app/api/routes";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers("/catalog");
