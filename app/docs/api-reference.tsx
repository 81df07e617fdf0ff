"use client";
// The reference is a Vue app (Scalar) that mounts into a div and reads window.location: loaded in
// the browser only, with a line of text until it is there.
import dynamic from "next/dynamic";
import { config as configureZod } from "zod/v4/core";

// Scalar validates with zod, which first probes whether it may compile code (`new Function`). The
// page's CSP forbids that (lib/http/docs-content-security-policy.ts); the probe's error is caught,
// but Chromium still reports a violation. jitless skips the probe: zod interprets, as it would
// after a failed probe. Set before Scalar loads, and in the browser only: this module is also
// rendered on the server, whose zod (the API's validation) keeps compiling.
if (typeof window !== "undefined") configureZod({ jitless: true });

export const ApiReference = dynamic(() => import("./scalar-reference"), {
  ssr: false,
  loading: () => <p style={{ padding: 24 }}>Loading the API reference…</p>,
});
