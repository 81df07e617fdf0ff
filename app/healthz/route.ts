// /healthz under Next.js. The handler and its docs are in the route table (app/api/routes.ts).
import { routeHandlers } from "@/app/api/routes";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers("/healthz");
