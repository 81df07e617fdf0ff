// One signed request to the H2H supplier and whatever came back, without interpreting it. Every
// failure to get an answer (timeout, refused or reset connection, unreadable body) is data, not an
// exception, because the caller must turn it into "unknown" / "unavailable" and never guess.
// No retries here: resending a top-up is the worker's decision, made after checkTopup.
//
// A connection with a destination policy (a supplier account's own baseUrl) is checked before every
// request as a webhook delivery is: resolved, refused unless every address may be reached, and
// connected to the address checked, so a DNS answer that changes in between cannot redirect it.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { DestinationRefused, resolveDestination, type DestinationPolicy } from "../webhooks/check-destination";
import { agentFor } from "../webhooks/send-webhook";
import { signH2hRequest } from "./h2h-protocol";

export interface H2hConnection {
  baseUrl: string;
  partnerId: string;
  secret: string;
  timeoutMs: number;
  destination?: DestinationPolicy;
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
    const sendBody = payload === undefined ? undefined : body;
    if (connection.destination) {
      const pinned = await resolveDestination(target.href, connection.destination);
      ({ httpStatus, text } = await requestPinned(target, pinned, { method, headers, body: sendBody, signal }));
    } else {
      const response = await fetch(target, {
        method,
        headers,
        body: sendBody,
        signal,
        // A redirect would change the signed path; treat it as an answer we do not understand.
        redirect: "manual",
      });
      httpStatus = response.status;
      text = await response.text();
    }
  } catch (error) {
    if (error instanceof DestinationRefused)
      return { kind: "no_answer", reason: `destination refused: ${error.message}` };
    if (signal.aborted) return { kind: "no_answer", reason: `no answer within ${connection.timeoutMs} ms` };
    return { kind: "no_answer", reason: `connection failed: ${describeNetworkError(error)}` };
  }
  return { kind: "answered", httpStatus, body: parseJson(text) };
}

/** One request connected to the checked address (TLS still verifies the URL's host name); no redirects. */
function requestPinned(
  target: URL,
  pinned: Awaited<ReturnType<typeof resolveDestination>>,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
): Promise<{ httpStatus: number; text: string }> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: (typeof pinned)[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const transport = target.protocol === "https:" ? https : http;
  const headers =
    init.body === undefined
      ? init.headers
      : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) };
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      { method: init.method, headers, lookup, agent: agentFor(target, pinned), signal: init.signal },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ httpStatus: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
        response.on("aborted", () => reject(new Error("the answer was cut off")));
      },
    );
    request.on("error", reject);
    request.end(init.body);
  });
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
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && code !== "ABORT_ERR") return code;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}
