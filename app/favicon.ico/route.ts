// /favicon.ico under Next.js. The handler is in the route table (app/api/routes.ts).
import { routeHandlers } from "@/app/api/routes";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers("/favicon.ico");
