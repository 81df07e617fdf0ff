// The one wrapper around every public API route. In order: key extraction, key format, key lookup
// by hash, account state, IP allowlist, rate limit, the order/redeem switches, body and query
// parsing with zod, the handler, error mapping. Every failure body comes from the error catalogue.
import { z } from "zod";
import { env } from "../config/env";
import { isDatabaseUnavailable } from "../db/errors";
import { parseTrustedProxies, resolveClientIp } from "../net/ip";
import {
  authenticateApiKey,
  checkAccountAccess,
  checkIpAccess,
  extractApiKey,
  touchKeyLastUsed,
  type ApiCaller,
} from "../auth/authenticate-api-key";
import { ApiError, errorResponse, jsonResponse, type ErrorKey } from "./errors";
import { readJsonBody } from "./read-json-body";
import type { HttpMethod, RequestContext, RouteHandler } from "./router";
import { applyKeyRateLimit, guardFailedAuth, noteFailedAuth, readApiSettings, type ApiSettings } from "./access-policies";

/** Which runtime switch closes a route: "order" (MAINTENANCE, API_ORDER_DISABLED) or "redeem" (MAINTENANCE). */
export type RouteAction = "read" | "order" | "redeem";

export interface HandlerInput<B, Q> {
  request: Request;
  caller: ApiCaller;
  clientIp: string;
  body: B;
  query: Q;
  params: Record<string, string>;
  settings: ApiSettings;
}

export interface PublicRouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Path with ":param" segments, without the /api prefix (served at both). */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  action?: RouteAction;
  body?: B;
  /** Accepted alternative names of body fields: canonical name -> aliases (SPEC section 4). */
  aliases?: Record<string, string[]>;
  query?: Q;
  params?: z.ZodObject;
  /** Schema of the 200 body, for the OpenAPI document. */
  response: z.ZodType;
  /** Errors this route can answer besides the authentication, access and rate-limit ones. */
  errors: ErrorKey[];
  handle(input: HandlerInput<B extends z.ZodType ? z.output<B> : undefined, Q extends z.ZodType ? z.output<Q> : undefined>): Promise<unknown>;
}

export interface PublicRoute {
  spec: PublicRouteSpec<z.ZodType | undefined, z.ZodType | undefined>;
  handler: RouteHandler;
}

let trustedProxies: string[] | undefined;

function applyAliases(body: unknown, aliases: Record<string, string[]> | undefined): unknown {
  if (!aliases || typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const source = body as Record<string, unknown>;
  const result: Record<string, unknown> = { ...source };
  for (const [canonical, names] of Object.entries(aliases)) {
    if (result[canonical] !== undefined) continue;
    const alias = names.find((name) => source[name] !== undefined);
    if (alias) result[canonical] = source[alias];
  }
  return result;
}

function describeIssues(error: z.ZodError) {
  return error.issues.map((issue) => ({ field: issue.path.join(".") || "(body)", message: issue.message }));
}

function toResponse(error: unknown): Response {
  if (error instanceof ApiError) return errorResponse(error.key, error.options);
  if (isDatabaseUnavailable(error)) return errorResponse("SERVICE_UNAVAILABLE", { headers: { "retry-after": "2" } });
  console.error("[api] unexpected error:", error);
  return errorResponse("INTERNAL_ERROR");
}

function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  if (headers) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export function publicRoute<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  spec: PublicRouteSpec<B, Q>,
): PublicRoute {
  const maxBodyBytes = env().maxBodyBytes;

  const handler: RouteHandler = async (request: Request, context: RequestContext) => {
    let limitHeaders: Record<string, string> | undefined;
    try {
      trustedProxies ??= parseTrustedProxies(env().trustedProxies);
      const clientIp = resolveClientIp(context.peerIp, request.headers.get("x-forwarded-for"), trustedProxies);

      guardFailedAuth(clientIp);
      let caller: ApiCaller;
      try {
        caller = await authenticateApiKey(extractApiKey(request.headers));
      } catch (error) {
        if (error instanceof ApiError) await noteFailedAuth(clientIp);
        throw error;
      }

      const settings = await readApiSettings();
      const accessError = checkAccountAccess(caller, settings.eligibility) ?? checkIpAccess(caller, clientIp);
      // Every keyed answer counts toward the key's limits, refusals included.
      const decision = await applyKeyRateLimit(caller.keyId);
      limitHeaders = decision.headers;
      if (accessError) throw accessError;
      if (!decision.allowed) throw new ApiError("RATE_LIMIT", { headers: { "retry-after": String(decision.retryAfterSeconds) } });
      touchKeyLastUsed(caller.keyId);

      if (spec.action === "order" || spec.action === "redeem") {
        if (settings.maintenance) throw new ApiError("MAINTENANCE");
        if (spec.action === "order" && settings.apiOrderDisabled) throw new ApiError("API_ORDER_DISABLED");
      }

      let body: unknown;
      if (spec.body) {
        const raw = applyAliases(await readJsonBody(request, maxBodyBytes), spec.aliases);
        const parsed = spec.body.safeParse(raw === undefined ? {} : raw);
        if (!parsed.success) throw new ApiError("INVALID_BODY", { extra: { details: describeIssues(parsed.error) } });
        body = parsed.data;
      }
      let query: unknown;
      if (spec.query) {
        const parsed = spec.query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
        if (!parsed.success) throw new ApiError("INVALID_REQUEST", { extra: { details: describeIssues(parsed.error) } });
        query = parsed.data;
      }

      const result = await spec.handle({
        request,
        caller,
        clientIp,
        body: body as never,
        query: query as never,
        params: context.params,
        settings,
      });
      return withHeaders(result instanceof Response ? result : jsonResponse(result), limitHeaders);
    } catch (error) {
      return withHeaders(toResponse(error), limitHeaders);
    }
  };

  return { spec: spec as unknown as PublicRoute["spec"], handler };
}
