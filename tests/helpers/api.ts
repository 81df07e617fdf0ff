import { inject } from "vitest";

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

export interface ApiResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export function baseUrl(): string {
  return inject("baseUrl");
}

export async function api(path: string, call: ApiCall = {}, base = baseUrl()): Promise<ApiResult> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.key !== undefined) headers["x-api-key"] = call.key;
  let body: string | undefined = call.rawBody;
  if (body === undefined && call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(base + path, {
    method: call.method ?? (body !== undefined ? "POST" : "GET"),
    headers,
    body,
    signal: call.signal,
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
