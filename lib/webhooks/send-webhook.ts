// One HTTP POST of a webhook, connected to an address already checked by check-destination.ts.
// Only the answer's status matters; its body is read up to a small cap for the delivery log.
// Redirects are not followed (node:http never does), and the whole exchange is cut at the timeout.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "./check-destination";

export const MAX_RESPONSE_BYTES = 1024;

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
    const finish = (outcome: Omit<SendOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const request = transport.request(
      input.url,
      {
        method: "POST",
        headers: { ...input.headers, "content-length": String(Buffer.byteLength(input.body)) },
        lookup,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString("utf8");
          finish({
            httpStatus: response.statusCode,
            responseBody: text,
            retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], Date.now()),
          });
          response.destroy();
        };
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_RESPONSE_BYTES) done();
        });
        response.on("end", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${input.timeoutMs / 1000} s` });
      request.destroy();
    }, input.timeoutMs);
    request.on("error", (error) => finish({ error: error.message || String(error) }));
    request.end(input.body);
  });
}
