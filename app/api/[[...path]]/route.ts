// Every /api path that no other route file serves: the route table's JSON 404 (or its answer, for
// a table path without a route file of its own), never Next's HTML page.
import { routeHandlers } from "@/app/api/routes";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers();
