// The dashboard's server actions as a client calls them: every action from the build's
// server-reference manifest, posted to a page that serves it, with no arguments or with a form.
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import { suiteBaseUrl } from "./suite";

export interface ManifestAction {
  id: string;
  name: string;
  /** A page path that serves the action (Next looks actions up by the page they are posted to). */
  pagePath: string;
}

export const SERVER_REFERENCE_MANIFEST = path.join(projectRoot, ".next", "server", "server-reference-manifest.json");

/** Every server action of the dashboard, from the build's server-reference manifest. */
export function dashboardActions(ids: { orderId: number; accountId: number }): ManifestAction[] {
  const manifest = JSON.parse(fs.readFileSync(SERVER_REFERENCE_MANIFEST, "utf8"));
  return Object.entries(
    manifest.node as Record<string, { workers: Record<string, unknown>; exportedName: string; filename: string }>,
  )
    .filter(([, entry]) => entry.filename.startsWith("app/admin/"))
    .map(([id, entry]) => {
      const worker = Object.keys(entry.workers)[0]!;
      const pagePath = worker
        .replace(/^app/, "")
        .replace(/\/page$/, "")
        .replace(/\/\([^)]+\)/g, "")
        .replace("/orders/[id]", `/orders/${ids.orderId}`)
        .replace("/accounts/[id]", `/accounts/${ids.accountId}`);
      return { id, name: entry.exportedName, pagePath: pagePath || "/admin" };
    });
}

/** Calls a server action the way Next's client does, with no arguments. */
export function postAction(action: ManifestAction, headers: Record<string, string> = {}, base = suiteBaseUrl()) {
  return fetch(base + action.pagePath, {
    method: "POST",
    redirect: "manual",
    headers: {
      "next-action": action.id,
      "content-type": "text/plain;charset=UTF-8",
      origin: base,
      accept: "text/x-component",
      ...headers,
    },
    body: "[]",
  });
}

/**
 * Calls a form's server action (useActionState's `(state, formData)`) the way React's client encodes
 * it: the form's fields as "_1_<name>", then part "0" with the arguments, `[null, "$K1"]` (the server
 * reads the arguments when "0" arrives, so the fields must come first).
 */
export function postActionForm(
  action: ManifestAction,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  base = suiteBaseUrl(),
) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(`_1_${name}`, value);
  body.append("0", JSON.stringify([null, "$K1"]));
  return fetch(base + action.pagePath, {
    method: "POST",
    redirect: "manual",
    headers: { "next-action": action.id, origin: base, accept: "text/x-component", ...headers },
    body,
  });
}
