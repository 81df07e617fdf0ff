// Next's request proxy, for every page Next renders (the dashboard, its sign-in page, /docs, and
// the not-found page of any other path Next answers): their security headers and a fresh nonce per
// request, in the Content-Security-Policy sent to the browser and in the request's own CSP header,
// from which Next stamps the nonce on the page's scripts (pages render per request for that:
// app/layout.tsx). The policies are in lib/http/security-headers.ts and
// lib/http/docs-content-security-policy.ts. API answers set their own headers (lib/http/errors.ts).
import { NextResponse, type NextRequest } from "next/server";
import { docsContentSecurityPolicy } from "./lib/http/docs-content-security-policy";
import { isHttpsRequest } from "./lib/http/https-request";
import {
  createCspNonce,
  pageContentSecurityPolicy,
  PAGE_SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
} from "./lib/http/security-headers";

export function proxy(request: NextRequest) {
  // Not lib/config: Next compiles NODE_ENV into the proxy bundle (tests/unit/config-only-reader.test.ts).
  const development = process.env.NODE_ENV === "development";
  const nonce = createCspNonce();
  const docs = request.nextUrl.pathname === "/docs";
  const policy = docs
    ? docsContentSecurityPolicy(nonce, { development })
    : pageContentSecurityPolicy(nonce, { development });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  if (!docs) response.headers.set("x-frame-options", "DENY");
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.headers.set(name, value);
  if (isHttpsRequest((name) => request.headers.get(name))) {
    response.headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  }
  return response;
}

// Paths Next answers with a page (next.config.ts sends every other path to the API, whose answers
// carry their own headers). /_next/ is mostly static files, which a header more does not hurt; its
// unknown paths are the not-found page.
export const config = { matcher: ["/docs", "/docs/:path*", "/admin", "/admin/:path*", "/_next/:path*"] };
