// Security headers, one table for both hosts. API answers are JSON a browser must never render,
// sniff or frame; dashboard pages may load only this origin's code and may not be framed. HSTS is
// sent, and the session cookie is Secure, only when the request reached us over HTTPS: a plain
// local http install would otherwise lose its cookie.
// No imports: lib/http/errors.ts builds every JSON answer with these.

export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
};

/** Every page (the dashboard, /docs): CSP is set per page. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** One year; subdomains are the operator's to decide, so not included. */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

/**
 * The dashboard's policy: this origin only, never framed. Next's pages carry inline bootstrap
 * scripts without a nonce (the dashboard's pages are not all rendered per request), so script-src
 * allows 'unsafe-inline'; nothing from another origin can load or be sent anywhere else.
 */
export function adminContentSecurityPolicy(options: { development?: boolean } = {}): string {
  return [
    "default-src 'self'",
    // React's development build evaluates code (`next dev` only).
    `script-src 'self' 'unsafe-inline'${options.development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
