// The process's HTTP server. Paths of the route table go straight to their Web-standard handlers
// through @hono/node-server's request listener; every other path goes to Next's request handler in
// the same process (dashboard, docs, next-auth), with its body bounded here. Without Next, the
// table's JSON 404 is answered here. Every request is observed here (its X-Request-Id, log line
// and metrics: lib/observability/observe-request.ts), whichever of them answers it.
import http from "node:http";
import { getRequestListener, type HttpBindings } from "@hono/node-server";
import { errorBody, errorResponse } from "./errors";
import { NEXT_BODY_LIMIT_BYTES } from "./body-limits";
import { dispatchRoute } from "./dispatch-route";
import type { RouteMatch } from "./router";
import { resolveRequestClientIp } from "./client-address";
import { API_SECURITY_HEADERS } from "./security-headers";
import { gateSignInRequests } from "../admin-sign-in/gate-sign-in-requests";
import {
  finishObservation,
  noteAnswer,
  routeLabel,
  startObservation,
  NEXT_ROUTE,
  UNMATCHED_ROUTE,
  type RequestObservation,
} from "../observability/observe-request";

export type NodeHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

interface Router {
  match(method: string, pathname: string): RouteMatch;
}

const matches = new WeakMap<http.IncomingMessage, { match: RouteMatch; observation: RequestObservation }>();

function refuseOversize(res: http.ServerResponse, maxBytes: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBody("PAYLOAD_TOO_LARGE", undefined, { maxBytes }));
  // Node discards the unread rest of the body after the answer (as for the API's own 413s).
  res.writeHead(413, { "content-type": "application/json; charset=utf-8", ...API_SECURITY_HEADERS });
  res.end(body);
}

/** A copy of a request whose chunked body was read here, carrying that body with its length. */
function withBufferedBody(req: http.IncomingMessage, body: Buffer): http.IncomingMessage {
  const copy = new http.IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, "content-length": String(body.length) };
  delete headers["transfer-encoding"];
  copy.headers = headers;
  copy.rawHeaders = Object.entries(headers).flatMap(([name, value]) =>
    Array.isArray(value) ? value.flatMap((v) => [name, v]) : [name, String(value)],
  );
  copy.push(body);
  copy.push(null);
  // Received in full: otherwise destroying the copy after it is read would count as an aborted
  // request and close the connection.
  copy.complete = true;
  return copy;
}

/**
 * Bounds a request body before Next sees it. A declared length over the limit is refused at once
 * (within it, Node's parser never delivers more than declared). A chunked body, which browsers do
 * not send, is read here up to the limit and handed on with its length; past the limit it is
 * refused and the rest is discarded as it arrives. Resolves with the request to hand to Next, or
 * undefined when it was refused (or aborted).
 */
function limitRequestBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  maxBytes: number,
): Promise<http.IncomingMessage | undefined> | http.IncomingMessage | undefined {
  const declared = Number(req.headers["content-length"] ?? "");
  if (declared > maxBytes) {
    refuseOversize(res, maxBytes);
    return undefined;
  }
  if (req.headers["transfer-encoding"] === undefined) return req;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBytes) {
        refused = true;
        chunks.length = 0;
        refuseOversize(res, maxBytes);
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!refused) resolve(withBufferedBody(req, Buffer.concat(chunks, size)));
    });
    req.on("error", () => resolve(undefined));
  });
}

export function createHttpServer(options: {
  router: Router;
  next?: NodeHandler;
  onError?: (error: unknown) => void;
}): http.Server {
  const onError = options.onError ?? (() => undefined);
  const next = options.next && gateSignInRequests(options.next);
  const apiListener = getRequestListener(
    async (request: Request, bindings) => {
      const incoming = (bindings as HttpBindings).incoming;
      const { match, observation } = matches.get(incoming) ?? {
        match: options.router.match(request.method, new URL(request.url).pathname),
        observation: startObservation(undefined),
      };
      const response = await dispatchRoute(match, request, incoming.socket.remoteAddress ?? "", onError, observation);
      noteAnswer(observation, response);
      return response;
    },
    {
      // A request the adapter itself cannot read (aborted, malformed) still gets a JSON answer.
      errorHandler: () => errorResponse("INTERNAL_ERROR"),
    },
  );

  return http.createServer((req, res) => {
    const requestIdHeader = req.headers["x-request-id"];
    const observation = startObservation(Array.isArray(requestIdHeader) ? requestIdHeader[0] : requestIdHeader);
    res.setHeader("x-request-id", observation.requestId);
    // HTTP/1.0 has no Host header (a load balancer's health check often sends none): the request's
    // URL needs one, and nothing here answers differently by host.
    req.headers.host ??= "localhost";
    const pathname = (req.url ?? "/").split("?")[0] ?? "/";
    const method = req.method ?? "GET";
    const match = options.router.match(method, pathname);
    const route = match.kind === "not-found" ? (next ? NEXT_ROUTE : UNMATCHED_ROUTE) : routeLabel(match.route, req.url);
    res.once("close", () => finishObservation(observation, route, method, res.statusCode, !res.writableFinished));
    if (match.kind === "not-found" && next) {
      // Next (next-auth's sign-in throttle) reads the client IP from X-Forwarded-For: it gets the
      // address the API would use, never a value the client wrote itself.
      req.headers["x-forwarded-for"] = resolveRequestClientIp((name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(",") : (value ?? null);
      }, req.socket.remoteAddress ?? "");
      const bounded = limitRequestBody(req, res, NEXT_BODY_LIMIT_BYTES);
      if (bounded instanceof Promise) void bounded.then((request) => request && next(request, res));
      else if (bounded) void next(bounded, res);
      return;
    }
    matches.set(req, { match, observation });
    void apiListener(req, res);
  });
}
