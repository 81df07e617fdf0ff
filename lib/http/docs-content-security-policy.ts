// The Content-Security-Policy of /docs (the Scalar API reference; proxy.ts sends it): the page may
// load scripts, styles, fonts and images and connect only to its own origin, so a compromised or
// misconfigured dependency can neither pull code from elsewhere nor send the API key typed into
// "try it" off the origin. tests/e2e/docs-page.test.ts loads the page under it and fails on any
// violation.
//
// Scripts: Next's own inline scripts (the page's data) carry the per-request nonce; every other
// script is a file of this origin. Styles: Scalar sets style attributes and injects <style>
// elements at run time (its theme and our customCss), which no nonce can cover, so style-src
// allows 'unsafe-inline' (styles cannot run code; the sources stay this origin only).

export function docsContentSecurityPolicy(nonce: string, options: { development?: boolean } = {}): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    // React's development build evaluates code (`next dev` only).
    "script-src": ["'self'", `'nonce-${nonce}'`, ...(options.development ? ["'unsafe-eval'"] : [])],
    "style-src": ["'self'", "'unsafe-inline'"],
    "font-src": ["'self'"],
    "img-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}
