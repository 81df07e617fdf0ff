// The interactive API reference for integrators: Scalar's renderer (@scalar/api-reference-react,
// bundled by Next and served from this origin like the rest of the page) over the OpenAPI document
// at /openapi.json, with "try it" against this service. Both hosts serve it: the lean host hands
// /docs and /_next/* to Next. Above it, links to the document and the Postman collection.
import { connection } from "next/server";
import { ApiReference } from "./api-reference";

export const metadata = { title: "Top-up API reference" };

export default async function DocsPage() {
  // Rendered per request, not at build time: Next stamps each response's CSP nonce (proxy.ts) on
  // the page's inline scripts only while rendering it.
  await connection();
  return (
    <>
      <noscript>
        <p style={{ padding: 24 }}>
          The API reference needs JavaScript. The same content is the OpenAPI document at{" "}
          <a href="/openapi.json">/openapi.json</a>.
        </p>
      </noscript>
      <nav aria-label="Downloads" style={{ padding: "8px 24px", fontSize: 14 }}>
        Downloads: <a href="/openapi.json">OpenAPI document</a> ·{" "}
        <a href="/postman.json" download="topup-api.postman_collection.json">
          Postman collection
        </a>
      </nav>
      <ApiReference />
    </>
  );
}
