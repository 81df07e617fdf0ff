// The code samples of every operation (`x-codeSamples` in /openapi.json, shown on /docs): curl and
// the TypeScript client (sdk/). Everything that names the client (its package, `createClient`, its
// methods) is in this file, so a rename in the client is one edit here.
import type { OperationExample } from "./operation-examples";

export const CLIENT_PACKAGE = "@topup-api/client";

/** The client call of each operation, from its example (keys as in operationExamples). */
const clientCalls: Record<string, (example: OperationExample) => string> = {
  "GET /services": () => "const { services } = await client.listServices();",
  "GET /products": () => "const { products } = await client.listProducts();",
  "GET /catalog": () => "const { products } = await client.getCatalog();",
  "GET /my-ip": () => "const { ip } = await client.getMyIp();",
  "GET /balance": () => "const { balanceUsd } = await client.getBalance();",
  "POST /balance": () =>
    "// Not available: wallets are funded through the bot, so the client has no method for it.\nconst { balanceUsd } = await client.getBalance();",
  "POST /orders": (e) =>
    `// Retries resend the same trxid, so a retry never buys twice.\nconst { invoice, replayed } = await client.placeOrder(${literal(e.body)});\nconst finished = await client.waitForOrder(invoice.orderId, { timeoutMs: 60_000 });`,
  "GET /orders/{orderId}": (e) =>
    `const order = await client.getOrder(${literal(e.params!.orderId)}, ${literal(numbers(e.query))});`,
  "GET /history": (e) =>
    `const { orders, hasMore } = await client.getHistory(${literal(numbers(e.query))});\n// or every order of this key, page after page:\nfor await (const order of client.iterateHistory()) console.log(order.orderId, order.status);`,
  "GET /ledger": (e) =>
    `const { entries } = await client.getLedger(${literal(numbers(e.query))});\n// or every entry, page after page:\nfor await (const entry of client.iterateLedger()) console.log(entry.type, entry.amountUsd, entry.balanceAfterUsd);`,
  "POST /brvvfy": (e) => `const { nickname } = await client.verifyBrPlayer(${literal(e.body)});`,
  "POST /mobavfy": (e) => `const { nickname } = await client.verifyMobaPlayer(${literal(e.body)});`,
  "POST /rdmbr": (e) => `const { redemptionId } = await client.redeemCode(${literal(e.body)});`,
  "GET /events": (e) => `const { events, nextAfter } = await client.listEvents(${literal(numbers(e.query))});`,
  "POST /webhooks/replay": (e) => `const { deliveries } = await client.replayWebhooks(${literal(e.body)});`,
};

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

function typescriptSample(operationKey: string, example: OperationExample): string | undefined {
  const call = clientCalls[operationKey];
  if (!call) return undefined;
  return [
    `import { createClient } from "${CLIENT_PACKAGE}";`,
    "",
    "const client = createClient({ baseUrl: process.env.TOPUP_API_URL!, apiKey: process.env.TOPUP_API_KEY! });",
    call(example),
  ].join("\n");
}

/** `x-codeSamples` of one operation: curl, then the TypeScript client when it has a method for it. */
export function codeSamples(method: string, path: string, example: OperationExample) {
  const typescript = typescriptSample(`${method} ${path}`, example);
  return [
    { lang: "Shell", label: "curl", source: curlSample(method, path, example) },
    ...(typescript ? [{ lang: "TypeScript", label: "TypeScript client", source: typescript }] : []),
  ];
}
