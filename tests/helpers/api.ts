import { readAnswer, type ApiResult } from "./read-answer";
import { suiteBaseUrl } from "./suite";

export interface ApiCall {
  method?: string;
  key?: string;
  /** Sent as JSON unless rawBody is given. */
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Aborts the call (a fault test's bound on a request that would hang). */
  signal?: AbortSignal;
}

export type { ApiResult } from "./read-answer";

/** The method, headers and body `api` sends for a call. */
export function apiRequest(call: ApiCall): { method: string; headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { ...call.headers };
  if (call.key !== undefined) headers["x-api-key"] = call.key;
  let body: string | undefined = call.rawBody;
  if (body === undefined && call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers["content-type"] ??= "application/json";
  }
  return { method: call.method ?? (body !== undefined ? "POST" : "GET"), headers, body };
}

export async function api(path: string, call: ApiCall = {}, base = suiteBaseUrl()): Promise<ApiResult> {
  return readAnswer(await fetch(base + path, { ...apiRequest(call), signal: call.signal }));
}
