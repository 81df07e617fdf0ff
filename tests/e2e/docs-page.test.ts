// The interactive API reference at /docs, in Chromium, on both hosts (the lean host that hands
// /docs to Next in its process, and `next start` alone): every request the page makes, "try it"
// included, stays on the page's origin (no CDN, no fonts, no telemetry); every operation and
// webhook event of /openapi.json is listed; the error reference is on the page; the key field
// starts empty, with a hint where Scalar shows a sample key; and "try it" on GET /balance with the
// demo key shows the balance the database holds. Needs the Next build (npm
// test makes it). Screenshots: test-results/screenshots/docs-try-it-<host>.png.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright";
import { closePool } from "@/lib/db/pool";
import { seedDemoData } from "@/lib/seed/seed-demo-data";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { errorCatalogue } from "@/lib/http/errors";
import { docsContentSecurityPolicy } from "@/lib/http/docs-content-security-policy";
import { api } from "../helpers/api";
import { closeSql, resetDatabase } from "../helpers/db";
import { findChromium, launchBrowser, SCREENSHOT_DIR } from "../helpers/browser";
import { startNextServer, type NextServer } from "../helpers/next-start";
import { TEST_ENV } from "../setup/test-env";
import { API_KEY_FIELD_HINT, SCALAR_SAMPLE_KEY } from "@/lib/openapi/docs-key-field";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[docs e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

// The demo account's $100 plus this, so the balance on the page cannot be the example's 100.
const EXTRA_CENTS = 2345;
const EXPECTED_BALANCE = "123.45";

interface Operation {
  method: string;
  path: string;
  summary: string;
}

describe.skipIf(!chromiumPath)("the API reference at /docs in Chromium", () => {
  let browser: Browser;
  let nextServer: NextServer;
  let demoKey: string;
  let operations: Operation[];
  let webhooks: string[];
  const hosts: Record<string, () => string> = {
    "lean host": () => suiteBaseUrl(),
    "next start": () => nextServer.baseUrl,
  };

  beforeAll(async () => {
    await resetDatabase();
    const seeded = await seedDemoData();
    demoKey = seeded.demoApiKey!;
    await creditWallet({ accountId: seeded.accountId, amountCents: EXTRA_CENTS, actor: "test", reason: "docs test" });
    const document = (await api("/openapi.json")).json;
    operations = Object.entries(document.paths as Record<string, Record<string, { summary: string }>>).flatMap(
      ([path, item]) =>
        Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary })),
    );
    expect(operations.length).toBeGreaterThan(10);
    webhooks = Object.keys(document.webhooks);
    [nextServer, browser] = await Promise.all([
      startNextServer({
        ...TEST_ENV,
        DATABASE_URL: suiteDatabaseUrl(),
        RATE_LIMIT_PREFIX: `rl-docs-${process.pid}-${Date.now()}`,
      }),
      launchBrowser(),
    ]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await nextServer?.stop();
    await closePool();
    await closeSql();
  });

  /** Opens every closed group of the sidebar, so each operation's entry is in the page. */
  async function openSidebarGroups(page: Page) {
    for (let round = 0; round < 20; round++) {
      const closed = page.getByRole("button", { name: /^Open Group - / });
      if ((await closed.count()) === 0) return;
      await closed.first().click();
    }
    throw new Error("sidebar groups kept appearing closed");
  }

  it.each(Object.keys(hosts))(
    "%s: stays on its origin, lists every operation and the errors, and tries GET /balance",
    async (host) => {
      const origin = new URL(hosts[host]!()).origin;
      const context = await browser.newContext({ baseURL: origin, viewport: { width: 1400, height: 900 } });
      context.setDefaultTimeout(30_000);
      const requests: string[] = [];
      context.on("request", (request) => requests.push(request.url()));
      const sockets: string[] = [];
      const page = await context.newPage();
      page.on("websocket", (socket) => sockets.push(socket.url()));
      // Everything the page's Content-Security-Policy blocked (or would have: a caught attempt counts).
      const violations: string[] = [];
      await page.exposeFunction("reportCspViolation", (violation: string) => violations.push(violation));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (event) => {
          const report = (window as unknown as { reportCspViolation(violation: string): void }).reportCspViolation;
          report(`${event.violatedDirective} blocked ${event.blockedURI} in ${event.sourceFile}:${event.lineNumber}`);
        });
      });
      try {
        const answer = await page.goto("/docs");
        const policy = answer?.headers()["content-security-policy"] ?? "";
        const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
        expect(nonce, `a nonce in the CSP of /docs: ${policy}`).toBeTruthy();
        expect(policy).toBe(docsContentSecurityPolicy(nonce!));
        await page.getByRole("heading", { name: "Top-up API", level: 1 }).waitFor();

        // Every operation of the document has its entry in the sidebar, under its summary.
        await openSidebarGroups(page);
        const listed = await page.locator("li[data-sidebar-id]").evaluateAll((items) =>
          items.map((item) => ({
            id: item.getAttribute("data-sidebar-id")!,
            label: item.querySelector("a")?.textContent ?? "",
          })),
        );
        for (const { method, path, summary } of operations) {
          const entry = listed.find(({ id }) => id.endsWith(`/${method}${path}`));
          expect(entry, `${method} ${path} in the sidebar`).toBeDefined();
          expect(entry!.label).toContain(summary);
        }
        // The sidebar's ids write an event name's underscores as dashes (order.refund_requested).
        for (const name of webhooks)
          expect(
            listed.some(({ id }) => id.endsWith(`/webhook/POST/${name.replaceAll("_", "-")}`)),
            `webhook ${name}`,
          ).toBe(true);

        // The error reference: an item per code in the introduction.
        const codes = page.locator(".introduction-description li > strong > code");
        await codes.first().waitFor({ state: "attached" });
        expect((await codes.allTextContents()).sort()).toEqual(Object.keys(errorCatalogue).sort());

        // "Try it": the demo key in the client's auth field, Send, and the balance in the response panel.
        await page.goto("/docs#api-1/tag/account/GET/balance");
        await page
          .locator('[id="api-1/tag/account/GET/balance"]')
          .getByRole("button", { name: /Test Request/ })
          .click();
        const client = page.getByRole("dialog");
        const keyField = client.getByRole("textbox", { name: "Value", exact: true });
        // The key field starts empty, with a hint in words rather than something shaped like a key.
        expect(await keyField.inputValue()).toBe("");
        expect(await keyField.getAttribute("placeholder")).toBe(API_KEY_FIELD_HINT);
        // Nor anywhere else on the page (the reference's own authentication box).
        expect(
          await page.locator(`[placeholder="${SCALAR_SAMPLE_KEY}"], [data-placeholder="${SCALAR_SAMPLE_KEY}"]`).count(),
        ).toBe(0);
        await keyField.fill(demoKey);
        const [sent] = await Promise.all([
          page.waitForRequest(
            (request) => new URL(request.url()).pathname === "/balance" && request.method() === "GET",
          ),
          client.getByRole("button", { name: /^Send get request to / }).click(),
        ]);
        expect(sent.url()).toBe(`${origin}/balance`);
        expect(await sent.headerValue("x-api-key")).toBe(demoKey);
        const response = client.getByRole("region", { name: "Response" });
        await response.getByText("200 OK").waitFor();
        await response
          .locator(".cm-content")
          .filter({ hasText: `"balanceUsd": ${EXPECTED_BALANCE}` })
          .waitFor();
        // The viewport, not the full page: the reference is many screens long behind the client.
        fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
        const file = path.join(SCREENSHOT_DIR, `docs-try-it-${host.replace(/\W+/g, "-")}.png`);
        await page.screenshot({ path: file });
        console.log(`[docs e2e] ${host}: screenshot ${file}`);

        const offOrigin = requests.filter(
          (url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin,
        );
        expect(offOrigin, "requests that left the origin").toEqual([]);
        expect(sockets, "web sockets").toEqual([]);
        expect(violations, "Content-Security-Policy violations").toEqual([]);
        expect(requests).toContain(`${origin}/openapi.json`);
        console.log(`[docs e2e] ${host}: ${requests.length} requests, all to ${origin}`);
      } finally {
        await context.close();
      }
    },
  );
});
