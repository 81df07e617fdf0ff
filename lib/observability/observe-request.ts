// What every request leaves behind: its id (the client's X-Request-Id when it sent a usable one,
// otherwise a new one), echoed in the answer's X-Request-Id; one log line (method, route, status,
// latency, account, key prefix, error code); and the HTTP metrics. The lean host observes every
// request it serves (lean-host.ts); under `next start` the public routes observe themselves
// (observeRoute, applied by publicRoute). The route is the route table's pattern, never the path:
// a path can carry an order reference, and a client may put anything in it.
import { randomUUID } from "node:crypto";
import { displayPrefix } from "../auth/api-key-format";
import { extractApiKey } from "../auth/authenticate-api-key";
import { errorCodeOf } from "../http/errors";
import type { RouteContext, RouteHandler } from "../http/router";
import { logger } from "./logger";
import { recordHttpRequest, recordRateLimitRefusal } from "./metrics";

export interface RequestObservation {
  requestId: string;
  /** performance.now() at the request's arrival. */
  started: number;
  /** Set once the API key is known (publicRoute): the caller's account and its key's display prefix. */
  accountId?: number;
  keyPrefix?: string;
  /** The catalogue's code of an error answer. */
  code?: string;
}

/** Route of a request the lean host hands to Next (dashboard, docs, next-auth, Next's 404 page). */
export const NEXT_ROUTE = "next";
/** Route of a request no route matched, when no Next is there to take it. */
export const UNMATCHED_ROUTE = "unmatched";

// A client's id is kept only when it is short and plain, so it can go into a log line and a header as is.
const USABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

const log = logger("http");

export function startObservation(requestIdHeader: string | null | undefined): RequestObservation {
  const given = requestIdHeader?.trim();
  return {
    requestId: given && USABLE_REQUEST_ID.test(given) ? given : randomUUID(),
    started: performance.now(),
  };
}

/** The caller of an authenticated request, for its log line: the account, and the key's display prefix only. */
export function noteCaller(context: RouteContext, caller: { accountId: number }, headers: Headers): void {
  const observation = context.observation;
  if (!observation) return;
  observation.accountId = caller.accountId;
  const key = extractApiKey(headers);
  if (key) observation.keyPrefix = displayPrefix(key);
}

/** The error code of an answer, if the catalogue built it. */
export function noteAnswer(observation: RequestObservation, response: Response): void {
  observation.code = errorCodeOf(response);
}

/** A request held until something happens (GET /orders/:id?wait=N) is measured apart from quick ones. */
export function routeLabel(route: string, url: string | undefined): string {
  return url !== undefined && /[?&]wait=[^&]/.test(url) ? `${route}?wait` : route;
}

/** The request's metrics and its log line, once it is answered. */
export function finishObservation(
  observation: RequestObservation,
  route: string,
  method: string,
  status: number,
  aborted = false,
): void {
  const seconds = (performance.now() - observation.started) / 1000;
  recordHttpRequest(route, method, status, seconds);
  if (observation.code === "RATE_LIMIT")
    recordRateLimitRefusal(observation.accountId === undefined ? "network" : "key");
  // Next's own requests (pages, assets) are many per page view: at debug unless they fail.
  const level = status >= 500 ? "error" : route === NEXT_ROUTE ? "debug" : "info";
  if (level !== "error" && !log.isLevelEnabled(level)) return;
  log[level]("request", {
    reqId: observation.requestId,
    method,
    route,
    status,
    latencyMs: Math.round(seconds * 10_000) / 10,
    accountId: observation.accountId,
    keyPrefix: observation.keyPrefix,
    code: observation.code,
    aborted: aborted || undefined,
  });
}

/**
 * A route handler that observes its own requests where no host does (`next start`); under the lean
 * host, which observes every request itself, it only calls the handler.
 */
export function observeRoute(route: string, handler: RouteHandler): RouteHandler {
  return async (request, context) => {
    if (context.observation) return handler(request, context);
    const observation = startObservation(request.headers.get("x-request-id"));
    const response = await handler(request, { ...context, observation });
    response.headers.set("x-request-id", observation.requestId);
    noteAnswer(observation, response);
    finishObservation(observation, routeLabel(route, request.url), request.method, response.status);
    return response;
  };
}
