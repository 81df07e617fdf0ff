// One signed request to the H2H supplier and whatever came back, without interpreting it. Every
// failure to get an answer (timeout, refused or reset connection, unreadable body) is data, not an
// exception, because the caller must turn it into "unknown" / "unavailable" and never guess.
// No retries here: resending a top-up is the worker's decision, made after checkTopup.
import { signH2hRequest } from "./h2h-protocol";

export interface H2hConnection {
  baseUrl: string;
  partnerId: string;
  secret: string;
  timeoutMs: number;
}

export type H2hExchange =
  /** The supplier answered. `body` is the parsed JSON, or undefined when the body was not JSON. */
  | { kind: "answered"; httpStatus: number; body: unknown }
  /** No usable answer arrived. */
  | { kind: "no_answer"; reason: string };

export async function exchangeWithH2h(
  connection: H2hConnection,
  method: "GET" | "POST",
  path: string,
  payload?: object,
): Promise<H2hExchange> {
  const base = new URL(connection.baseUrl);
  const target = new URL(base.pathname.replace(/\/+$/, "") + path, base.origin);
  // Sign what goes on the wire: the URL parser may normalise the path we built.
  const wirePath = target.pathname + target.search;
  const body = payload === undefined ? "" : JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));

  const headers: Record<string, string> = {
    accept: "application/json",
    "x-partner-id": connection.partnerId,
    "x-timestamp": timestamp,
    "x-signature": signH2hRequest(connection.secret, timestamp, method, wirePath, body),
  };
  if (payload !== undefined) headers["content-type"] = "application/json";

  // One deadline for the whole exchange, reading the body included: a supplier that sends headers
  // and then stalls is as silent as one that never answers.
  const signal = AbortSignal.timeout(connection.timeoutMs);
  let httpStatus: number;
  let text: string;
  try {
    const response = await fetch(target, {
      method,
      headers,
      body: payload === undefined ? undefined : body,
      signal,
      // A redirect would change the signed path; treat it as an answer we do not understand.
      redirect: "manual",
    });
    httpStatus = response.status;
    text = await response.text();
  } catch (error) {
    if (signal.aborted) return { kind: "no_answer", reason: `no answer within ${connection.timeoutMs} ms` };
    return { kind: "no_answer", reason: `connection failed: ${describeNetworkError(error)}` };
  }
  return { kind: "answered", httpStatus, body: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// fetch reports "fetch failed" and keeps the useful part (ECONNREFUSED, UND_ERR_SOCKET ...) in cause.
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}
