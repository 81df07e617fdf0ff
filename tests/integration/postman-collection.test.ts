// The Postman collection at /postman.json, run as an integrator runs it: newman (Postman's own
// runner) against the running service with only the collection variables `baseUrl` and `apiKey`
// set, on the demo data `npm start` seeds (its catalog, the demo key and its $100). Every request
// the collection makes is checked against the OpenAPI document: its status, headers and body are
// documented for its operation (tests/helpers/openapi-validator.ts), and newman reports no failure.
import { beforeAll, describe, expect, it } from "vitest";
import newman from "newman";
import { seedDemoData } from "@/lib/seed/seed-demo-data";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { buildPostmanCollection, POSTMAN_DEFAULT_BASE_URL } from "@/lib/openapi/build-postman-collection";
import { publicRoutes } from "@/app/api/public-routes";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { firstOf, sql } from "../helpers/db";
import { useCleanDatabase } from "../helpers/clean-database";
import { loadOpenApiValidator, type OpenApiValidator, type SentRequest } from "../helpers/openapi-validator";

interface Exchange {
  request: SentRequest;
  response: { status: number; headers: Headers; text: string };
}

interface RunResult {
  exchanges: Exchange[];
  failures: { error: { message: string }; source?: { name?: string } }[];
}

/** One newman run of `collection` with the collection variables set, every exchange recorded. */
function runCollection(collection: object, variables: Record<string, string>): Promise<RunResult> {
  const exchanges: Exchange[] = [];
  return new Promise((resolve, reject) => {
    newman
      .run(
        {
          collection,
          envVar: Object.entries(variables).map(([key, value]) => ({ key, value })),
          reporters: [],
          timeoutRequest: 60_000,
        },
        (error, summary) => {
          if (error) reject(error);
          else resolve({ exchanges, failures: summary.run.failures as unknown as RunResult["failures"] });
        },
      )
      .on("request", (error, args) => {
        if (error || !args.response) return;
        const url = new URL(args.request.url.toString());
        const headers = new Headers();
        args.response.headers.each((header: { key: string; value: string }) =>
          headers.append(header.key, header.value),
        );
        const sentHeaders: Record<string, string> = {};
        args.request.headers.each((header: { key: string; value: string; disabled?: boolean }) => {
          if (!header.disabled) sentHeaders[header.key.toLowerCase()] = header.value;
        });
        exchanges.push({
          request: {
            method: args.request.method,
            url: url.pathname + url.search,
            headers: sentHeaders,
            body: args.request.body?.raw || undefined,
          },
          response: { status: args.response.code, headers, text: args.response.stream?.toString("utf8") ?? "" },
        });
      });
  });
}

useCleanDatabase({ catalog: false });

let demo: { accountId: number; key: string };
let validator: OpenApiValidator;
let served: { status: number; json: any; headers: Headers };

beforeAll(async () => {
  const seeded = await seedDemoData();
  if (!seeded.demoApiKey) throw new Error("the seed made no demo key");
  demo = { accountId: seeded.accountId, key: seeded.demoApiKey };
  validator = await loadOpenApiValidator((await api("/openapi.json")).json);
  served = await api("/postman.json");
});

describe("the Postman collection", () => {
  it("is served beside /openapi.json, converted from it, the same on every instance", async () => {
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^application\/json/);
    // What this process converts is what the server's process serves: nothing random in it.
    expect(served.json).toEqual(await buildPostmanCollection(buildOpenApiDocument(publicRoutes)));
    expect(served.json.info.schema).toBe("https://schema.getpostman.com/json/collection/v2.1.0/collection.json");
    expect(served.json.variable.map((v: { key: string; value: string }) => [v.key, v.value])).toEqual([
      ["baseUrl", POSTMAN_DEFAULT_BASE_URL],
      ["apiKey", ""],
    ]);
    expect(JSON.stringify(served.json.auth)).toContain("{{apiKey}}");
    expect((await api("/api/postman.json")).status).toBe(404);
  });

  it("is linked from /docs: on the page and in the document's introduction it renders", async () => {
    const page = await fetch(suiteBaseUrl() + "/docs");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('href="/postman.json"');
    expect((await api("/openapi.json")).json.info.description).toContain("[/postman.json](/postman.json)");
  });

  it(
    "runs in newman with baseUrl and apiKey set: every operation answers as documented, no failure",
    { timeout: 120_000 },
    async () => {
      const { exchanges, failures } = await runCollection(served.json, { baseUrl: suiteBaseUrl(), apiKey: demo.key });
      expect(failures.map((f) => `${f.source?.name}: ${f.error.message}`)).toEqual([]);
      const document = (await api("/openapi.json")).json;
      const operations = Object.values(document.paths as Record<string, object>).flatMap((item) => Object.keys(item));
      expect(exchanges).toHaveLength(operations.length);
      for (const { request, response } of exchanges) {
        const what = `${request.method} ${request.url} -> ${response.status} ${response.text.slice(0, 300)}`;
        expect(validator.checkRequest(request), what).toEqual([]);
        expect(validator.checkResponse(request, response), what).toEqual([]);
        // Each example, sent as it is with the demo key, succeeds; POST /balance is 501 by design, and
        // the refund request of the example order, which the example cancel has just cancelled, is
        // refused as documented (409 REFUND_NOT_AVAILABLE: not completed).
        const expected =
          request.method === "POST" && request.url === "/balance"
            ? 501
            : request.url.includes("/refund-request")
              ? 409
              : 200;
        expect(response.status, what).toBe(expected);
      }
      // The placed order was read back by the trxid the examples share.
      expect(exchanges.map((e) => `${e.request.method} ${e.request.url.split("?")[0]}`)).toContain(
        "GET /orders/INV-10001",
      );
      const order = firstOf(
        await sql<{ trxid: string }>(`SELECT trxid FROM orders WHERE account_id = $1`, [demo.accountId]),
      );
      expect(order.trxid).toBe("INV-10001");
    },
  );
});
