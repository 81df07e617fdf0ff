// One HTTP POST of a webhook, connected to an address already checked by check-destination.ts.
// Only the answer's status matters; its body is read up to a small cap for the delivery log.
// Redirects are not followed (node:http never does), and the whole exchange is cut at the timeout.
//
// Connections are kept alive per destination: one agent per URL origin and checked address, so a
// socket is only ever reused for the address it was opened to (and checked for), never for another
// origin or for what the host name resolves to later.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "./check-destination";

export const MAX_RESPONSE_BYTES = 1024;
/** Idle sockets kept per destination, and destinations kept before the oldest's idle sockets are closed. */
const SOCKETS_PER_DESTINATION = 10;
const MAX_DESTINATIONS = 500;

const agents = new Map<string, http.Agent>();

/** The kept-alive agent for one origin at one checked address (supplier connections use it too). */
export function agentFor(url: URL, pinned: ResolvedAddress): http.Agent {
  const key = `${url.protocol}//${url.host}@${pinned.address}`;
  let agent = agents.get(key);
  if (agent) {
    // Most recently used last, so the oldest is the first to go.
    agents.delete(key);
    agents.set(key, agent);
    return agent;
  }
  const options = {
    keepAlive: true,
    maxSockets: SOCKETS_PER_DESTINATION,
    maxFreeSockets: SOCKETS_PER_DESTINATION,
    timeout: 60_000,
  };
  agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  agents.set(key, agent);
  if (agents.size > MAX_DESTINATIONS) {
    const [oldestKey, oldest] = agents.entries().next().value as [string, http.Agent];
    agents.delete(oldestKey);
    closeIdleSockets(oldest);
  }
  return agent;
}

/**
 * Closes an agent's idle sockets. Its requests still running (a slow receiver, a supplier call)
 * finish on theirs, which then close after the agent's idle timeout: destroying the agent would cut
 * them, a failed attempt for the receiver and an unknown outcome for a supplier.
 */
function closeIdleSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

export interface SendOutcome {
  httpStatus?: number;
  responseBody?: string;
  error?: string;
  durationMs: number;
  /** Seconds from the answer's Retry-After header, when it had a usable one. */
  retryAfterSeconds?: number;
}

function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The error text an attempt records (shown per endpoint by the bot). A connection that fails for
 * any reason, refused, filtered (a connect that times out), unreachable or reset, reads the same,
 * so endpoints cannot be used to tell closed ports from filtered ones; once TCP is up, the timeout
 * and TLS errors (a bad certificate) keep their own words.
 */
export function attemptErrorText(
  error: { code?: string; message?: string } | "timeout",
  connected: boolean,
  timeoutMs: number,
): string {
  if (!connected) return "connection failed";
  if (error === "timeout") return `no answer within ${timeoutMs / 1000} s`;
  if (error.code && CONNECTION_ERRORS.has(error.code)) return "connection failed";
  return error.message || String(error.code);
}

const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EPIPE",
  "EADDRNOTAVAIL",
]);

export function sendWebhook(input: {
  url: URL;
  pinned: ResolvedAddress;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // The connection goes to the checked address whatever DNS says now; TLS still verifies the
  // certificate against the URL's host name.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [input.pinned]);
    else callback(null, input.pinned.address, input.pinned.family);
  };
  const transport = input.url.protocol === "https:" ? https : http;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    let current: http.ClientRequest | undefined;
    // Whether the request's TCP connection is up: every failure before that reads alike.
    let connected = false;
    const finish = (outcome: Omit<SendOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const timer = setTimeout(() => {
      finish({ error: attemptErrorText("timeout", connected, input.timeoutMs) });
      current?.destroy();
    }, input.timeoutMs);
    const post = (mayResend: boolean) => {
      const request = transport.request(
        input.url,
        {
          method: "POST",
          headers: { ...input.headers, "content-length": String(Buffer.byteLength(input.body)) },
          lookup,
          agent: agentFor(input.url, input.pinned),
        },
        (response) => readResponse(response, finish),
      );
      current = request;
      connected = false;
      request.on("socket", (socket) => {
        // A kept-alive socket from the agent is already connected.
        if (request.reusedSocket || !socket.connecting) connected = true;
        else socket.once("connect", () => (connected = true));
      });
      request.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the receiver closed just as we reused it: the request almost surely
        // never arrived, so it is sent once more on another socket (Node's documented remedy; a
        // receiver that did get both dedupes them by webhook-id).
        if (mayResend && !settled && request.reusedSocket && error.code === "ECONNRESET") return post(false);
        finish({ error: attemptErrorText(error, connected, input.timeoutMs) });
      });
      request.end(input.body);
    };
    post(true);
  });
}

/** The receiver's answer: its status, Retry-After and the start of its body (MAX_RESPONSE_BYTES). */
function readResponse(response: http.IncomingMessage, finish: (outcome: Omit<SendOutcome, "durationMs">) => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const text = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString("utf8");
    finish({
      httpStatus: response.statusCode,
      responseBody: text,
      retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], Date.now()),
    });
  };
  response.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    // A longer body is not read on: the socket is closed rather than drained for reuse.
    if (size >= MAX_RESPONSE_BYTES) {
      done();
      response.destroy();
    }
  });
  // Read to its end, the socket goes back to the agent for the next delivery.
  response.on("end", done);
  response.on("error", done);
}
