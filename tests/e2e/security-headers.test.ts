// Security headers over real HTTP on both hosts: API answers (JSON) may not be sniffed, framed or
// rendered; the dashboard's pages get a CSP whose scripts run only by a per-answer nonce and are
// never framed; HSTS and Secure cookies only when a trusted proxy says the client came over HTTPS,
// never on plain local http.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { pageContentSecurityPolicy } from "@/lib/http/security-headers";
import { useCleanDatabase } from "../helpers/clean-database";
import { createAccount } from "../helpers/fixtures";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { startNextServer, type NextServer } from "../helpers/next-start";
import { signInOverHttp } from "../helpers/admin-session";
import { enableTwoFactor, freshTotpCode } from "../helpers/two-factor";
import { suiteDatabaseUrl } from "../helpers/suite";

interface Host {
  name: string;
  baseUrl: string;
  /** Whether this host's TRUSTED_PROXIES holds the test's own address. */
  trustsUs: boolean;
}

// The accounts this file creates start from the suite database emptied, as every file's do.
useCleanDatabase();

const hosts: Host[] = [];
let totpSecret: string;
let lean: ChildProcess | undefined;
let nextServer: NextServer | undefined;

const ADMIN_EMAIL = "csp@example.com";
const ADMIN_PASSWORD = "a long enough test password";

/** Signs in through next-auth's credentials callback with a code; resolves with the session cookie. */
async function signIn(baseUrl: string): Promise<string> {
  const { sessionCookie } = await signInOverHttp({
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
    code: await freshTotpCode(ADMIN_EMAIL, totpSecret),
    base: baseUrl,
  });
  expect(sessionCookie, `a session from ${baseUrl}`).toBeDefined();
  return sessionCookie!;
}

/** A page's CSP nonce, after checking the policy is the pages' own for that nonce. */
async function pageNonce(res: Response, what: string): Promise<{ nonce: string; html: string }> {
  const policy = res.headers.get("content-security-policy") ?? "";
  const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
  expect(nonce, `${what}: a nonce in ${policy}`).toBeTruthy();
  expect(policy, what).toBe(pageContentSecurityPolicy(nonce!));
  const directive = (name: string) => policy.split("; ").find((d) => d.startsWith(`${name} `)) ?? "";
  expect(directive("script-src"), what).not.toContain("'unsafe-inline'");
  expect(directive("style-src"), what).not.toContain("'unsafe-inline'");
  const html = await res.text();
  // Every script of the page, inline or a file, carries this answer's nonce.
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length, `${what}: scripts`).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag, what).toContain(` nonce="${nonce}"`);
  // No style attribute: the policy refuses them (style-src without 'unsafe-inline').
  expect(html, what).not.toMatch(/<[^>]+\sstyle=/);
  return { nonce: nonce!, html };
}

function expectApiHeaders(headers: Headers, what: string) {
  expect(headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(headers.get("content-security-policy"), what).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(headers.get("referrer-policy"), what).toBe("no-referrer");
}

describe("security headers", () => {
  beforeAll(async () => {
    const env = { ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl() };
    // The lean host trusts another proxy only, next start trusts this test's address.
    const [leanServer, started] = await Promise.all([
      startServer({ ...env, TRUSTED_PROXIES: "192.0.2.1" }),
      startNextServer({ ...env, TRUSTED_PROXIES: "127.0.0.1" }),
    ]);
    lean = leanServer.child;
    nextServer = started;
    hosts.push({ name: "lean host", baseUrl: leanServer.baseUrl, trustsUs: false });
    hosts.push({ name: "next start", baseUrl: started.baseUrl, trustsUs: true });
    // A request that reaches `next start` while it is still starting is a 503 (no peer address
    // yet: tests/e2e/next-start-first-request.test.ts); the answers compared here come after.
    for (const host of hosts) {
      for (let tries = 0; tries < 150 && (await fetch(host.baseUrl + "/balance")).status === 503; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 180_000);
  afterAll(async () => {
    lean?.kill("SIGKILL");
    await nextServer?.stop();
    await closePool();
  });

  it("every API JSON answer, success or failure, carries nosniff, a closed CSP and no referrer", async () => {
    const { key } = await createAccount({ balanceCents: 100 });
    for (const host of hosts) {
      for (const [pathName, status, apiKey] of [
        ["/balance", 401, ""],
        ["/balance", 200, key],
        ["/no-such-path", 404, key],
      ] as const) {
        const res = await fetch(host.baseUrl + pathName, { headers: apiKey ? { "x-api-key": apiKey } : {} });
        expect(res.status, `${host.name} ${pathName}`).toBe(status);
        expectApiHeaders(res.headers, `${host.name} ${pathName}`);
      }
      const oversize = await fetch(host.baseUrl + "/orders", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: "x".repeat(2 * 1024 * 1024),
      });
      expect(oversize.status, `${host.name} oversize`).toBe(413);
      expectApiHeaders(oversize.headers, `${host.name} 413`);
      // The lean host refuses a page's oversize POST itself, before Next reads it.
      if (host.name !== "lean host") continue;
      const oversizePage = await fetch(host.baseUrl + "/admin/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "x".repeat(8 * 1024 * 1024),
      });
      expect(oversizePage.status, `${host.name} oversize page POST`).toBe(413);
      expect(oversizePage.headers.get("x-content-type-options"), `${host.name} oversize page POST`).toBe("nosniff");
    }
  });

  it("the dashboard's login page has a CSP of its origin, is never framed, and gets no HSTS on plain http", async () => {
    for (const host of hosts) {
      const res = await fetch(host.baseUrl + "/admin/login");
      expect(res.status, host.name).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, host.name).toContain("default-src 'self'");
      expect(csp, host.name).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options"), host.name).toBe("DENY");
      expect(res.headers.get("x-content-type-options"), host.name).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), host.name).toBe("no-referrer");
      expect(res.headers.get("strict-transport-security"), host.name).toBeNull();
      // /docs keeps its own nonce-based policy.
      const docs = await fetch(host.baseUrl + "/docs");
      expect(docs.headers.get("content-security-policy") ?? "", host.name).toMatch(/'nonce-[^']+'/);
      expect(docs.headers.get("x-content-type-options"), host.name).toBe("nosniff");
    }
  });

  it("every page Next renders runs its scripts by a fresh nonce per answer, never by 'unsafe-inline'", async () => {
    expect(
      (await createAdminUser({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    totpSecret = (await enableTwoFactor(ADMIN_EMAIL)).secret;
    for (const host of hosts) {
      const session = await signIn(host.baseUrl);
      for (const [pathName, status, cookie] of [
        ["/admin/login", 200, ""],
        ["/admin", 200, session],
        ["/admin/orders", 200, session],
        // Not-found pages Next renders under each of its prefixes.
        ["/admin/no-such-page", 404, ""],
        ["/docs/no-such-page", 404, ""],
        ["/_next/no-such-file", 404, ""],
      ] as const) {
        const what = `${host.name} ${pathName}`;
        const load = () => fetch(host.baseUrl + pathName, { redirect: "manual", headers: cookie ? { cookie } : {} });
        const [first, second] = [await load(), await load()];
        expect(first.status, what).toBe(status);
        expect(first.headers.get("x-frame-options"), what).toBe("DENY");
        const one = await pageNonce(first, what);
        const two = await pageNonce(second, what);
        expect(two.nonce, `${what}: a new nonce per answer`).not.toBe(one.nonce);
        if (cookie) expect(one.html, what).toContain(ADMIN_EMAIL);
      }
    }
  });

  it("HSTS and Secure cookies only when a trusted proxy says https", async () => {
    for (const host of hosts) {
      const plain = await fetch(host.baseUrl + "/api/auth/csrf");
      expectApiHeaders(plain.headers, `${host.name} /api/auth/csrf`);
      const plainCookie = plain.headers.getSetCookie().find((c) => c.startsWith("next-auth.csrf-token="));
      expect(plainCookie, host.name).toBeDefined();
      expect(plainCookie!, host.name).not.toMatch(/;\s*secure/i);
      expect(plain.headers.get("strict-transport-security"), host.name).toBeNull();

      const viaProxy = { "x-forwarded-proto": "https" };
      const auth = await fetch(host.baseUrl + "/api/auth/csrf", { headers: viaProxy });
      const cookie = auth.headers.getSetCookie().find((c) => c.startsWith("next-auth.csrf-token="));
      const page = await fetch(host.baseUrl + "/admin/login", { headers: viaProxy });
      if (host.trustsUs) {
        expect(cookie!, host.name).toMatch(/;\s*secure/i);
        expect(auth.headers.get("strict-transport-security"), host.name).toMatch(/^max-age=\d+/);
        expect(page.headers.get("strict-transport-security"), host.name).toMatch(/^max-age=\d+/);
      } else {
        // Anyone can write the header: from an untrusted peer it changes nothing.
        expect(cookie!, host.name).not.toMatch(/;\s*secure/i);
        expect(auth.headers.get("strict-transport-security"), host.name).toBeNull();
        expect(page.headers.get("strict-transport-security"), host.name).toBeNull();
      }
    }
  });
});
