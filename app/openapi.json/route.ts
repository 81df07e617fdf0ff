// GET /openapi.json: no key needed; built once per process from the public routes' specs.
import { jsonResponse } from "@/lib/http/errors";
import { otherMethods } from "@/lib/http/route-methods";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { publicRoutes } from "@/app/api/public-routes";

export const dynamic = "force-dynamic";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

export function GET(): Response {
  document ??= buildOpenApiDocument(publicRoutes);
  return jsonResponse(document, 200, { "cache-control": "public, max-age=300" });
}

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
