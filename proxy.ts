// Next's request proxy, for the pages (/docs and the dashboard): their security headers, and for
// /docs a fresh nonce per request, in the Content-Security-Policy sent to the browser and in the
// request's own CSP header, from which Next stamps the nonce on the page's inline scripts
// (app/docs/page.tsx renders per request for that). The policies are in
// lib/http/docs-content-security-policy.ts and lib/http/security-headers.ts.
import { NextResponse, type NextRequest } from "next/server";
import { createCspNonce, docsContentSecurityPolicy } from "./lib/http/docs-content-security-policy";
import { isHttpsRequest } from "./lib/http/https-request";
import {
  adminContentSecurityPolicy,
  PAGE_SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
} from "./lib/http/security-headers";

export function proxy(request: NextRequest) {
  // Not lib/config: Next compiles NODE_ENV into the proxy bundle (tests/unit/config-only-reader.test.ts).
  const development = process.env.NODE_ENV === "development";
  let response: NextResponse;
  if (request.nextUrl.pathname === "/docs") {
    const policy = docsContentSecurityPolicy(createCspNonce(), { development });
    const headers = new Headers(request.headers);
    headers.set("content-security-policy", policy);
    response = NextResponse.next({ request: { headers } });
    response.headers.set("content-security-policy", policy);
  } else {
    response = NextResponse.next();
    response.headers.set("content-security-policy", adminContentSecurityPolicy({ development }));
    response.headers.set("x-frame-options", "DENY");
  }
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.headers.set(name, value);
  if (isHttpsRequest((name) => request.headers.get(name))) {
    response.headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  }
  return response;
}

export const config = { matcher: ["/docs", "/admin", "/admin/:path*"] };
