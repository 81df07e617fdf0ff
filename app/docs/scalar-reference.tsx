"use client";
// Scalar's API reference, configured so the page makes no request off this origin: no web fonts
// (Scalar fetches them from its CDN by default), no telemetry, no AI agent or MCP panel (they
// call Scalar's services), no developer toolbar. Imported by api-reference.tsx in the browser only.
import { useEffect, useMemo } from "react";
import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";
import { API_KEY_FIELD_HINT, SCALAR_SAMPLE_KEY } from "@/lib/openapi/docs-key-field";

// System fonts instead of the CDN's.
const CUSTOM_CSS = `
.scalar-app, .scalar-api-reference {
  --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --scalar-font-code: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
}
`;

function configuration() {
  // "Try it" sends to this origin. The document's servers are "/" and "/api", which Scalar joins
  // with the path into "//balance"; absolute ones avoid that.
  const origin = window.location.origin;
  return {
    url: "/openapi.json",
    servers: [
      { url: origin, description: "This service" },
      { url: `${origin}/api`, description: "This service, under /api" },
    ],
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never" as const,
    documentDownloadType: "json" as const,
    authentication: { preferredSecurityScheme: "ApiKeyHeader" },
    customCss: CUSTOM_CSS,
  };
}

/** Puts the hint in place of Scalar's sample key: in the masked input (placeholder) and the plain one (data-placeholder). */
function replaceSampleKeyPlaceholders(): void {
  for (const attribute of ["placeholder", "data-placeholder"]) {
    for (const field of document.querySelectorAll(`[${attribute}="${SCALAR_SAMPLE_KEY}"]`))
      field.setAttribute(attribute, API_KEY_FIELD_HINT);
  }
}

export default function ScalarReference() {
  const config = useMemo(() => configuration(), []);
  // Scalar renders the key field late (the client dialog, a scheme switched, the key unmasked), so
  // every new one is caught as it appears; Vue leaves the attribute alone afterwards.
  useEffect(() => {
    replaceSampleKeyPlaceholders();
    const observer = new MutationObserver(replaceSampleKeyPlaceholders);
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["placeholder", "data-placeholder"],
    });
    return () => observer.disconnect();
  }, []);
  return <ApiReferenceReact configuration={config} />;
}
