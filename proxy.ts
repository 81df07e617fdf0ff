// Next's request proxy, for /docs only: a fresh nonce per request, in the Content-Security-Policy
// sent to the browser and in the request's own CSP header, from which Next stamps the nonce on the
// page's inline scripts (app/docs/page.tsx renders per request for that). The policy is in
// lib/http/docs-content-security-policy.ts.
import { NextResponse, type NextRequest } from "next/server";
import { createCspNonce, docsContentSecurityPolicy } from "./lib/http/docs-content-security-policy";

export function proxy(request: NextRequest) {
  // Not lib/config: Next compiles NODE_ENV into the proxy bundle (tests/unit/config-only-reader.test.ts).
  const policy = docsContentSecurityPolicy(createCspNonce(), { development: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = { matcher: ["/docs"] };
