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
 * The policy of every Next page but /docs (the dashboard, its sign-in page, the not-found page):
 * this origin only, never framed. Inline scripts run only with this response's nonce, which Next
 * stamps on its own scripts while rendering the page per request (app/layout.tsx); an injected
 * <script> or event-handler attribute does not run. Styles likewise: the stylesheets are files of
 * this origin, any inline <style> needs the nonce, and style attributes are refused (the pages
 * style with classes only). `next dev` alone adds 'unsafe-eval' (React's development build
 * evaluates code) and inline styles (for its development overlay, as Next's CSP guide does).
 */
export function pageContentSecurityPolicy(nonce: string, options: { development?: boolean } = {}): string {
  const development = options.development ?? false;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${development ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A fresh nonce for one response (128 random bits, base64). */
export function createCspNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}
