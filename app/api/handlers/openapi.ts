import { jsonResponse } from "@/lib/http/errors";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { publicRoutes } from "../public-routes";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

/** GET /openapi.json: no key needed; built once per process from the route specs. */
export function getOpenApiDocument(): Response {
  document ??= buildOpenApiDocument(publicRoutes);
  return jsonResponse(document, 200, { "cache-control": "public, max-age=300" });
}
