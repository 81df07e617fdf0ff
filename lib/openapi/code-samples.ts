// The code samples of every operation (`x-codeSamples` in /openapi.json, shown on /docs): curl and
// the TypeScript client (sdk/), both made from the route's example. The client's method is the
// operationId (the client is generated from the document); the lines around that call are the
// route's `clientSample`.
import type { PublicRouteSpec } from "../http/public-route";
import type { OperationExample } from "./operation-example";

export const CLIENT_PACKAGE = "@topup-api/client";

type Spec = Pick<PublicRouteSpec<undefined, undefined>, "method" | "path" | "operationId" | "example" | "clientSample">;

/** A JS object literal in the style people write: `{ pid: "SVCBR60", quantity: 1 }`. */
function literal(value: unknown): string {
  if (value === undefined) return "{}";
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).map(
    ([key, v]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${literal(v)}`,
  );
  return entries.length ? `{ ${entries.join(", ")} }` : "{}";
}

/** Query values as the client takes them: numbers where the text is a number. */
function numbers(query: Record<string, string> | undefined): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(query ?? {}).map(([key, value]) => [key, /^\d+$/.test(value) ? Number(value) : value]),
  );
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function urlOf(path: string, example: OperationExample): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(example.params?.[name] ?? `<${name}>`),
  );
  const query = example.query ? `?${new URLSearchParams(example.query)}` : "";
  return `$TOPUP_API_URL${filled}${query}`;
}

function curlSample(method: string, path: string, example: OperationExample): string {
  const lines = [
    `curl -sS${method === "GET" ? "" : ` -X ${method}`} "${urlOf(path, example)}"`,
    `  -H "X-API-Key: $TOPUP_API_KEY"`,
  ];
  if (example.body)
    lines.push(`  -H "Content-Type: application/json"`, `  -d ${shellQuote(JSON.stringify(example.body))}`);
  return lines.join(" \\\n");
}

/** The client's call for the operation with the example's arguments: path parameters, then the query or body. */
function clientCall(spec: Spec): string {
  const { params, query, body } = spec.example;
  const pathValues = [...spec.path.matchAll(/:(\w+)/g)].map(([, name]) => literal(params?.[name!]));
  const args = [...pathValues, ...(query ? [literal(numbers(query))] : []), ...(body ? [literal(body)] : [])];
  return `client.${spec.operationId}(${args.join(", ")})`;
}

function typescriptSample(spec: Spec): string {
  return [
    `import { createClient } from "${CLIENT_PACKAGE}";`,
    "",
    "const client = createClient({ baseUrl: process.env.TOPUP_API_URL!, apiKey: process.env.TOPUP_API_KEY! });",
    spec.clientSample(clientCall(spec)),
  ].join("\n");
}

/** `x-codeSamples` of one operation: curl, then the TypeScript client. */
export function codeSamples(spec: Spec) {
  const path = spec.path.replace(/:([A-Za-z]+)/g, "{$1}");
  return [
    { lang: "Shell", label: "curl", source: curlSample(spec.method, path, spec.example) },
    { lang: "TypeScript", label: "TypeScript client", source: typescriptSample(spec) },
  ];
}
