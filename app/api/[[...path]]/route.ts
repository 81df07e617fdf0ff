// Every /api path no other route file serves answers the catalogue's JSON 404, never Next's HTML page.
import { notFoundMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = notFoundMethods();
