// The host's gate in front of Next for sign-in POSTs: a flood of sign-ins would stall the event loop
// the API shares. Throttled or locked IPs (and, while the throttle's table is full, IPs it does not
// know) are answered here, Next sees a few at a time, the rest are refused at once (and counted
// against their IP), in next-auth's JSON shape so the form shows why.
import type http from "node:http";
import { createBoundedQueue, QueueFullError } from "./bounded-queue";
import { SIGN_IN_ERROR_CODES } from "./sign-in-error-codes";
import { recordLockout, signInState } from "./sign-in-state";
import { logger } from "../observability/logger";

const SIGN_IN_PATH = "/api/auth/callback/credentials";
const SIGN_IN_REQUESTS_CONCURRENCY = 4;
const SIGN_IN_REQUESTS_MAX_WAITING = 16;

/**
 * True for every path that can reach next-auth's credentials callback: Next decodes percent-escapes
 * (`%2F` included) before routing, keeps a trailing slash (skipTrailingSlashRedirect) and next-auth
 * reads the provider id loosely, so the path is compared decoded, without empty segments, any case.
 */
export function isSignInPath(url: string): boolean {
  let path = url.split("?")[0] ?? "";
  // Decode until stable: a doubly encoded path must not slip past either.
  for (let i = 0; i < 3; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      break;
    }
    if (decoded === path) break;
    path = decoded;
  }
  const canonical = "/" + path.replaceAll("\\", "/").split("/").filter(Boolean).join("/").toLowerCase();
  return canonical === SIGN_IN_PATH || canonical.startsWith(`${SIGN_IN_PATH}/`);
}

type NodeHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

function finished(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.writableEnded || res.destroyed) return resolve();
    res.once("close", () => resolve());
  });
}

function refuse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  error: string,
  retryAfterSeconds: number,
): void {
  const url = `http://${req.headers.host ?? "localhost"}/api/auth/error?error=${error}`;
  res.writeHead(status, {
    "content-type": "application/json",
    "retry-after": String(retryAfterSeconds),
    "cache-control": "no-store",
  });
  res.end(JSON.stringify({ url }));
}

/**
 * Wraps Next's handler: sign-in POSTs go through the IP throttle and a bounded queue, everything
 * else straight on. Expects X-Forwarded-For to hold the resolved client IP (the host sets it).
 */
export function gateSignInRequests(next: NodeHandler): NodeHandler {
  const queue = createBoundedQueue({
    concurrency: SIGN_IN_REQUESTS_CONCURRENCY,
    maxWaiting: SIGN_IN_REQUESTS_MAX_WAITING,
  });
  return async (req, res) => {
    if (req.method !== "POST" || !isSignInPath(req.url ?? "")) return next(req, res);
    const { throttle } = signInState();
    const clientIp = String(req.headers["x-forwarded-for"] ?? "unknown");
    try {
      const decision = throttle.checkIp(clientIp);
      if (!decision.allowed) {
        if (decision.newLockout) await recordLockout(decision.newLockout, { clientIp });
        return refuse(req, res, 401, SIGN_IN_ERROR_CODES[decision.reason], Math.ceil(decision.retryAfterMs / 1000));
      }
      await queue.run(async () => {
        // A client that gave up while waiting is not worth Next's time.
        if (req.destroyed) return;
        await Promise.all([next(req, res), finished(res)]);
      });
    } catch (error) {
      if (error instanceof QueueFullError) {
        throttle.countRefused(clientIp);
        return refuse(req, res, 503, SIGN_IN_ERROR_CODES.busy, 1);
      }
      logger("sign-in").error("sign-in request failed", { err: error });
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  };
}
