import SwaggerParser from "@apidevtools/swagger-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { demoCatalog, demoLine, demoPack } from "@/lib/seed/demo-catalog";
import { publicRoutes } from "@/app/api/public-routes";
import { suiteBaseUrl } from "../helpers/suite";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";

let key: string;

useCleanDatabase();
beforeAll(async () => {
  key = (await createAccount({ balanceCents: 12_345 })).key;
});

describe("GET /services", () => {
  it("lists available lines with required fields, status and serverIdOptions", async () => {
    const res = await api("/services", { key });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    expect(res.json.services.map((s: any) => s.slug)).toEqual(demoCatalog.map((line) => line.slug));
    // Expected values are the seeded demo catalog's (lib/seed/demo-catalog.ts).
    const moba = demoLine("moba");
    expect(res.json.services.find((s: any) => s.slug === "moba")).toEqual({
      productName: moba.productName,
      slug: "moba",
      gameName: moba.gameName,
      kind: "topup",
      required: moba.requiredFields,
      status: "active",
    });
    const gacha = res.json.services.find((s: any) => s.slug === "gacha");
    expect(gacha.serverIdOptions.map((o: any) => o.value)).toEqual(
      demoLine("gacha").serverIdOptions!.map((o) => o.value),
    );
    expect(res.json.services.find((s: any) => s.slug === "br").serverIdOptions).toBeUndefined();
  });

  it("hides unavailable lines and marks non-orderable ones disabled", async () => {
    await sql(`UPDATE game_lines SET available = false WHERE slug = 'moba'`);
    await sql(`UPDATE game_lines SET orderable = false WHERE slug = 'br'`);
    try {
      const res = await api("/services", { key });
      expect(res.json.services.map((s: any) => s.slug)).not.toContain("moba");
      expect(res.json.services.find((s: any) => s.slug === "br").status).toBe("disabled");
    } finally {
      await sql(`UPDATE game_lines SET available = true, orderable = true`);
    }
  });
});

describe("GET /products and GET /catalog", () => {
  it("list active packs with USD prices and stock on code lines, the same payload on both paths", async () => {
    const products = await api("/products", { key });
    const catalog = await api("/catalog", { key });
    expect(products.status).toBe(200);
    expect(catalog.json).toEqual(products.json);
    const rows = products.json.products;
    const { line, pack } = demoPack("SVCBR60");
    expect(rows.find((p: any) => p.id === "SVCBR60")).toEqual({
      id: "SVCBR60",
      slug: "br",
      gameName: line.gameName,
      serviceName: line.productName,
      packName: pack.packName,
      kind: "topup",
      price: pack.priceCents / 100,
      currency: "USD",
      orderable: true,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const { count } = await sqlRow(
      `SELECT count(*)::int AS count FROM inventory_codes c JOIN products p ON p.id = c.product_id WHERE p.catalog_id = 'SVCGKINDIE' AND c.status = 'available'`,
    );
    expect(rows.find((p: any) => p.id === "SVCGKINDIE").stock).toBe(count);
    for (const row of rows) {
      if (row.kind === "topup") expect(row).not.toHaveProperty("stock");
      else expect(row.id).toMatch(/^SVC(GK|GC)[A-Z0-9]+$/);
    }
  });

  it("leave out inactive packs", async () => {
    await sql(`UPDATE products SET active = false WHERE catalog_id = 'SVCBR325'`);
    try {
      const res = await api("/products", { key });
      expect(res.json.products.map((p: any) => p.id)).not.toContain("SVCBR325");
    } finally {
      await sql(`UPDATE products SET active = true`);
    }
  });
});

describe("GET /balance and GET /my-ip", () => {
  it("returns the balance in USD", async () => {
    const res = await api("/balance", { key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, balanceUsd: 123.45, currency: "USD", livemode: true });
  });

  it("POST /balance does not exist: 501 NOT IMPLEMENTED", async () => {
    const res = await api("/balance", { key, method: "POST" });
    expect(res.status).toBe(501);
    expect(res.json).toEqual({ success: false, error: "NOT IMPLEMENTED", code: "NOT_IMPLEMENTED" });
  });

  it("returns the caller's IP as the service sees it, ignoring a forged X-Forwarded-For", async () => {
    const res = await api("/my-ip", { key, headers: { "x-forwarded-for": "6.6.6.6" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, ip: "127.0.0.1" });
  });
});

describe("key use", () => {
  it("stamps the key's last_used_at shortly after a call (batched off the request's path)", async () => {
    const account = await createAccount();
    expect((await sqlRow(`SELECT last_used_at FROM api_keys WHERE id = $1`, [account.keyId])).last_used_at).toBeNull();
    expect((await api("/balance", { key: account.key })).status).toBe(200);
    await expect
      .poll(
        async () => (await sqlRow(`SELECT last_used_at FROM api_keys WHERE id = $1`, [account.keyId])).last_used_at,
        { timeout: 10_000, interval: 250 },
      )
      .toBeInstanceOf(Date);
  });
});

describe("every route answers identically at its root path and under /api", () => {
  it.each(publicRoutes.map((r) => [r.spec.method, r.spec.path.replace(":orderId", "1")]))(
    "%s %s",
    async (method, path) => {
      const root = await api(path, { key, method });
      const prefixed = await api(`/api${path}`, { key, method });
      expect(prefixed.status).toBe(root.status);
      expect(prefixed.json).toEqual(root.json);
      expect(prefixed.headers.get("content-type")).toBe(root.headers.get("content-type"));
    },
  );
});

describe("unknown paths and wrong methods", () => {
  const badPaths = [
    "/",
    "/nope",
    "/api",
    "/api/nope",
    "/orders/1/extra",
    "/services/x",
    "/.env",
    "/%2e%2e/etc/passwd",
    "/index.html",
    "/wp-login.php",
  ];
  it("GET /favicon.ico answers an icon, not the JSON 404", async () => {
    const res = await fetch(`${suiteBaseUrl()}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/x-icon");
    const bytes = new Uint8Array(await res.arrayBuffer());
    // An ICO header (reserved 0, type 1: icon, one image) whose image is a PNG.
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(Buffer.from(bytes.subarray(22, 26)).toString("latin1")).toBe("\x89PNG");
  });

  it.each(badPaths)("GET %s answers a JSON 404", async (path) => {
    const res = await api(path, { key });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.json).toEqual({ success: false, error: "NOT FOUND", code: "NOT_FOUND" });
  });

  const wrongMethods: [string, string][] = [
    ["DELETE", "/services"],
    ["PUT", "/products"],
    ["POST", "/catalog"],
    ["PATCH", "/my-ip"],
    ["DELETE", "/api/balance"],
    ["OPTIONS", "/services"],
  ];
  it.each(wrongMethods)("%s %s answers a JSON 405 with Allow", async (method, path) => {
    const res = await api(path, { key, method });
    expect(res.status).toBe(405);
    expect(res.json).toEqual({ success: false, error: "METHOD NOT ALLOWED", code: "METHOD_NOT_ALLOWED" });
    expect(res.headers.get("allow")).toBeTruthy();
  });

  it("never answers HTML or a stack trace", async () => {
    for (const path of [...badPaths, "/services", "/balance"]) {
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        const res = await api(path, {
          key,
          method,
          rawBody: method === "GET" ? undefined : "{not json",
          headers: { "content-type": "application/json" },
        });
        expect(res.headers.get("content-type"), `${method} ${path}`).toContain("application/json");
        expect(res.text).not.toMatch(/<html|<!DOCTYPE|at .*\.ts:\d+/i);
        expect(res.status, `${method} ${path}`).not.toBe(500);
      }
    }
  });
});

describe("the OpenAPI document and the docs page", () => {
  it("validates as OpenAPI 3.1 and covers every route, both auth headers and the errors", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const document = res.json;
    expect(document.openapi).toBe("3.1.0");
    await SwaggerParser.validate(structuredClone(document));
    for (const route of publicRoutes) {
      const path = route.spec.path.replace(/:([A-Za-z]+)/g, "{$1}");
      expect(document.paths[path]?.[route.spec.method.toLowerCase()], `${route.spec.method} ${path}`).toBeDefined();
    }
    expect(document.components.securitySchemes.ApiKeyHeader).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
    expect(document.components.securitySchemes.BearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.paths["/balance"].get.responses["403"].description).toContain("IP_NOT_ALLOWED");
    expect(document.paths["/balance"].post.responses["501"].description).toContain("NOT_IMPLEMENTED");
    // GET /my-ip answers past the allowlist, so it does not list the allowlist's refusals.
    expect(document.paths["/my-ip"].get["x-error-codes"]).not.toContain("IP_NOT_ALLOWED");
    expect(document.paths["/balance"].get["x-error-codes"]).toContain("IP_NOT_ALLOWED");
  });

  // The page itself (Scalar's reference, rendered in the browser) is tested in Chromium by
  // tests/e2e/docs-page.test.ts; here, the HTML every host answers for it.
  it("/docs is an HTML page whose every script and link is on this origin", async () => {
    const res = await api("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("<title>Top-up API reference</title>");
    expect(res.text).toContain('href="/openapi.json"');
    const urls = [...res.text.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls) expect(url, url).toMatch(/^\/(?!\/)/);
    expect(res.text).not.toMatch(/https?:\/\//);
  });
});
