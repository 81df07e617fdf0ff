// The Postman collection served at /postman.json: the OpenAPI document converted by Postman's own
// converter (openapi-to-postmanv2), one folder per tag, each request filled from its operation's
// example, the key sent as X-API-Key from the collection variable `apiKey` and every URL built on
// the collection variable `baseUrl` (docs/api.md: Postman).
//
// Made the same on every instance and every run, so any instance serves (and caches) the same
// file: the converter's random parts are removed (item ids, saved example responses whose headers
// it fakes) and each query parameter takes its value from the document (its example, else its
// default, else empty) instead of a faked one.

/** Where a collection run sends its requests unless the caller sets `baseUrl` (`npm start`'s address). */
export const POSTMAN_DEFAULT_BASE_URL = "http://localhost:3000";

interface OpenApiParameter {
  name: string;
  in: string;
  example?: unknown;
  schema?: { default?: unknown };
}
interface OpenApiDocument {
  paths?: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
}
interface PostmanQuery {
  key: string;
  value?: string;
}
interface PostmanItem {
  id?: string;
  name?: string;
  item?: PostmanItem[];
  request?: { method: string; url: { path?: string[]; query?: PostmanQuery[] } };
  response?: unknown[];
}
export interface PostmanCollection {
  info: Record<string, unknown>;
  item: PostmanItem[];
  variable: { key: string; value: string; type?: string; description?: string }[];
  auth?: unknown;
  event?: unknown[];
}

// The converter is loaded on the first request for the collection: its modules take some 20 MB of
// heap that no other request of an API process needs.
async function convert(document: object): Promise<PostmanCollection> {
  const { default: Converter } = await import("openapi-to-postmanv2");
  return new Promise((resolve, reject) => {
    Converter.convertV2(
      { type: "json", data: document },
      {
        folderStrategy: "Tags",
        parametersResolution: "Example",
        enableOptionalParameters: false,
        alwaysInheritAuthentication: true,
      },
      (error, result) => {
        const collection = result?.output?.[0]?.data as PostmanCollection | undefined;
        if (error || !result?.result || !collection) reject(error ?? new Error(`conversion failed: ${result?.reason}`));
        else resolve(collection);
      },
    );
  });
}

/** The document's value for a query parameter of an operation: its example, else its default, else "". */
function documentedQueryValue(document: OpenApiDocument, method: string, path: string[], name: string): string {
  const template = "/" + path.map((segment) => (segment.startsWith(":") ? `{${segment.slice(1)}}` : segment)).join("/");
  const parameter = document.paths?.[template]?.[method.toLowerCase()]?.parameters?.find(
    (candidate) => candidate.in === "query" && candidate.name === name,
  );
  const value = parameter?.example ?? parameter?.schema?.default;
  return value === undefined ? "" : String(value);
}

function settle(items: PostmanItem[], document: OpenApiDocument): void {
  for (const item of items) {
    delete item.id;
    delete item.response;
    if (item.item) settle(item.item, document);
    const request = item.request;
    for (const query of request?.url.query ?? [])
      query.value = documentedQueryValue(document, request!.method, request!.url.path ?? [], query.key);
  }
}

/** `document`: the OpenAPI document (lib/openapi/build-openapi-document.ts). */
export async function buildPostmanCollection(document: object): Promise<PostmanCollection> {
  const collection = await convert(document);
  delete collection.info._postman_id;
  settle(collection.item, document as OpenApiDocument);
  collection.variable = [
    {
      key: "baseUrl",
      value: POSTMAN_DEFAULT_BASE_URL,
      type: "string",
      description: "The service's address (no trailing slash)",
    },
    {
      key: "apiKey",
      value: "",
      type: "string",
      description: "Your API key (svc_..., or a test key svc_test_...), sent as X-API-Key",
    },
  ];
  return collection;
}
