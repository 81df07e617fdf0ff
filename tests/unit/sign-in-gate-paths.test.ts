// The host's sign-in gate must hold for every path next-auth answers as the credentials callback,
// not only the canonical spelling: a variant that skipped the gate reached next-auth uncapped.
import type http from "node:http";
import { describe, expect, it } from "vitest";
import { gateSignInRequests, isSignInPath } from "@/lib/admin-sign-in/gate-sign-in-requests";
import { signInState } from "@/lib/admin-sign-in/sign-in-state";
import { SIGN_IN_POLICIES } from "@/lib/admin-sign-in/sign-in-throttle";

const VARIANTS = [
  "/api/auth/callback/credentials",
  "/api/auth/callback/credentials/",
  "/api/auth/callback/credentials?json=true",
  "/api/auth/callback%2Fcredentials",
  "/api/auth/callback%2fcredentials/",
  "/api/auth/callback/cred%65ntials",
  "/api/auth/callback/%2563redentials",
  "/api/auth/callback/Credentials",
  "/API/Auth/Callback/CREDENTIALS",
  "//api//auth/callback/credentials",
];

function fakeRequest(url: string, ip: string): http.IncomingMessage {
  return { method: "POST", url, headers: { host: "localhost", "x-forwarded-for": ip }, destroyed: false } as never;
}

function fakeResponse(): http.ServerResponse & { status?: number } {
  const res = {
    status: undefined as number | undefined,
    headersSent: false,
    writableEnded: false,
    destroyed: false,
    writeHead(status: number) {
      res.status = status;
      res.headersSent = true;
      return res;
    },
    end() {
      res.writableEnded = true;
      return res;
    },
    once() {
      return res;
    },
  };
  return res as never;
}

describe("the sign-in gate's paths", () => {
  it.each(VARIANTS)("matches %s", (url) => expect(isSignInPath(url)).toBe(true));

  it.each(["/api/auth/csrf", "/api/auth/session", "/api/auth/callback/credentialsx", "/balance", "/admin/login"])(
    "leaves %s alone",
    (url) => expect(isSignInPath(url)).toBe(false),
  );

  it("refuses a locked-out IP on every variant without reaching next-auth", async () => {
    const ip = "192.0.2.77";
    const { throttle } = signInState();
    for (let i = 0; i < SIGN_IN_POLICIES.ip.lockAfter; i++) throttle.countRefused(ip);
    // This first check starts the lockout (its audit is the host's business, not this test's).
    expect(throttle.checkIp(ip)).toMatchObject({ allowed: false, reason: "locked" });
    let reached = 0;
    const gate = gateSignInRequests(() => {
      reached++;
    });
    for (const url of VARIANTS) {
      const res = fakeResponse();
      await gate(fakeRequest(url, ip), res);
      expect(res.status, url).toBe(401);
    }
    expect(reached).toBe(0);
    // Anything else from the same IP goes straight on.
    await gate(fakeRequest("/api/auth/csrf", ip), fakeResponse());
    expect(reached).toBe(1);
  });
});
