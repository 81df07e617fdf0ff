// GET /postman.json: no key needed; the Postman collection of the OpenAPI document /openapi.json
// serves, converted once per process (lib/openapi/build-postman-collection.ts).
import { jsonResponse } from "@/lib/http/errors";
import { otherMethods } from "@/lib/http/route-methods";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { buildPostmanCollection } from "@/lib/openapi/build-postman-collection";
import { publicRoutes } from "@/app/api/public-routes";

export const dynamic = "force-dynamic";

let collection: ReturnType<typeof buildPostmanCollection> | undefined;

export async function GET(): Promise<Response> {
  collection ??= buildPostmanCollection(buildOpenApiDocument(publicRoutes)).catch((error: unknown) => {
    collection = undefined; // the next request tries again
    throw error;
  });
  return jsonResponse(await collection, 200, {
    "cache-control": "public, max-age=300",
    "content-disposition": 'inline; filename="topup-api.postman_collection.json"',
  });
}

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
