// The one wrapper around every public API route. In order: key extraction, key format, key lookup
// by hash (with the rate-limit check started beside it), account state, IP allowlist (unless the
// route opts out), funding (supplier-backed routes), rate limit, the order/redeem switches, body and query parsing with zod, the
// handler, error mapping. Every failure body comes from the error catalogue.
import { z } from "zod";
import { env } from "../config/env";
import { isDatabaseUnavailable } from "../db/errors";
import {
  checkAccountAccess,
  checkIpAccess,
  checkSupplierCallFunding,
  touchKeyLastUsed,
  type ApiCaller,
} from "../auth/authenticate-api-key";
import { ApiError, errorCatalogue, errorResponse, jsonResponse, type ErrorKey } from "./errors";
import { readJsonBody } from "./read-json-body";
import type { HttpMethod, RouteContext, RouteHandler } from "./router";
import { PeerAddressUnknownError } from "./peer-address";
import { resolveRequestClientIp } from "./client-address";
import { callerAuthentication, readApiSettings, type ApiSettings } from "./access-policies";
import type { OperationExample } from "../openapi/operation-example";
import { noteCaller, observeRoute } from "../observability/observe-request";
import { logger } from "../observability/logger";

/**
 * Which runtime switch closes a route. "redeem": MAINTENANCE refuses every request. "order":
 * MAINTENANCE or API_ORDER_DISABLED stop new orders, and the handler is told (closedBy): a repeat of
 * an order that exists still answers, while a body that cannot be read is refused by the switch.
 */
type RouteAction = "read" | "order" | "redeem";
type ClosingSwitch = "MAINTENANCE" | "API_ORDER_DISABLED";

interface HandlerInput<B, Q> {
  request: Request;
  caller: ApiCaller;
  clientIp: string;
  body: B;
  query: Q;
  params: Record<string, string>;
  settings: ApiSettings;
  /** On an "order" route, the switch that stops new orders, when one is on. */
  closedBy?: ClosingSwitch;
}

export interface PublicRouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  method: HttpMethod;
  /** The OpenAPI operationId: camelCase, stable, the TypeScript client's method name for the operation. */
  operationId: string;
  /** Path with ":param" segments, without the /api prefix (served at both). */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  action?: RouteAction;
  body?: B;
  /** Accepted alternative names of body fields: canonical name -> aliases (docs/api.md). */
  aliases?: Record<string, string[]>;
  /**
   * Required body fields the zod schema cannot mark required, for the OpenAPI document: a name is a
   * field the handler requires itself (missing is 400 INVALID REQUEST, not INVALID BODY); a list is
   * "at least one of these fields" (a refinement of the schema).
   */
  documentRequired?: (string | string[])[];
  query?: Q;
  params?: z.ZodObject;
  /** Schema of the 200 body, for the OpenAPI document; absent for a route that never succeeds (POST /balance). */
  response?: z.ZodType;
  /** Other media types the 200 answer can take (GET /ledger's text/csv), for the OpenAPI document. */
  alternateContent?: Record<string, z.ZodType>;
  /** Headers of the 200 answer besides the rate-limit ones: name -> description, and whether every 200 has it. */
  responseHeaders?: Record<string, { description: string; required?: true }>;
  /** Errors this route can answer besides the authentication, access and rate-limit ones. */
  errors: ErrorKey[];
  /**
   * false: the key's IP allowlist is not checked (GET /my-ip, which tells a caller the address to
   * add). The key, the account state and the rate limit still apply.
   */
  ipAllowlist?: false;
  /**
   * true: the route asks a supplier (verify, redeem), so an account never funded is refused with
   * 403 API_NOT_ELIGIBLE while SUPPLIER_CALLS_REQUIRE_FUNDING is on (README: Configuration).
   */
  supplierCall?: true;
  handle(
    input: HandlerInput<B extends z.ZodType ? z.output<B> : undefined, Q extends z.ZodType ? z.output<Q> : undefined>,
  ): Promise<unknown>;
  /** The call /docs shows: its parameters, body and answers (checked against the schemas above by a unit test). */
  example: OperationExample;
  /**
   * The TypeScript client sample's code around `call`, the client's method for this operation (named
   * by operationId) with the example's arguments: `client.getOrder("SVCAPI-...", { wait: 10 })`.
   */
  clientSample(call: string): string;
}

/** A route file's handler for one method, carrying its spec for the route table and the OpenAPI document. */
export type PublicRoute = RouteHandler & { spec: PublicRouteSpec<z.ZodType | undefined, z.ZodType | undefined> };

function applyAliases(body: unknown, aliases: Record<string, string[]> | undefined): unknown {
  if (!aliases || typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const source = body as Record<string, unknown>;
  const result: Record<string, unknown> = { ...source };
  // null counts as not sent, so `"trxid": null, "trxId": "A1"` reads A1.
  for (const [canonical, names] of Object.entries(aliases)) {
    if (result[canonical] !== undefined && result[canonical] !== null) continue;
    const alias = names.find((name) => source[name] !== undefined && source[name] !== null);
    if (alias) result[canonical] = source[alias];
  }
  return result;
}

function describeIssues(error: z.ZodError) {
  return error.issues.map((issue) => ({ field: issue.path.join(".") || "(body)", message: issue.message }));
}

/**
 * A body that fails its schema is INVALID BODY, unless every failure is one the schema names with
 * `failsAs` (lib/api-schemas/fields.ts): then it is that error (a malformed redeem code is INVALID_CODE).
 */
function bodyError(error: z.ZodError): ApiError {
  const named = error.issues.map((issue) =>
    issue.code === "custom" ? (issue.params?.errorKey as ErrorKey | undefined) : undefined,
  );
  const key = named.every((k) => k !== undefined && k in errorCatalogue) ? named[0]! : "INVALID_BODY";
  return new ApiError(key, { extra: { details: describeIssues(error) } });
}

/** A request body read and checked against its schema: its value, or the error it answers with. */
type BodyOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

async function readBody(
  request: Request,
  schema: z.ZodType,
  aliases: Record<string, string[]> | undefined,
  maxBodyBytes: number,
): Promise<BodyOutcome> {
  try {
    const raw = applyAliases(await readJsonBody(request, maxBodyBytes), aliases);
    const parsed = schema.safeParse(raw === undefined ? {} : raw);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: bodyError(parsed.error) };
  } catch (error) {
    return { ok: false, error };
  }
}

function closingSwitch(action: RouteAction | undefined, settings: ApiSettings): ClosingSwitch | undefined {
  if (action !== "order" && action !== "redeem") return undefined;
  if (settings.maintenance) return "MAINTENANCE";
  if (action === "order" && settings.apiOrderDisabled) return "API_ORDER_DISABLED";
  return undefined;
}

function toResponse(error: unknown): Response {
  if (error instanceof ApiError) return errorResponse(error.key, error.options);
  // Only a request that reached `next start` while it was starting: a retry a moment later is served.
  if (error instanceof PeerAddressUnknownError)
    return errorResponse("SERVICE_UNAVAILABLE", { headers: { "retry-after": "1" } });
  if (isDatabaseUnavailable(error)) return errorResponse("SERVICE_UNAVAILABLE", { headers: { "retry-after": "2" } });
  logger("api").error("unexpected error", { err: error });
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
  const requireFunding = spec.supplierCall === true && env().supplierCallsRequireFunding;

  const handler: RouteHandler = async (request: Request, context: RouteContext) => {
    let limitHeaders: Record<string, string> | undefined;
    try {
      const clientIp = resolveRequestClientIp((name) => request.headers.get(name), context.peerIp);
      const params = (await context.params) as Record<string, string>;

      const { caller, limit } = await callerAuthentication.authenticate(request.headers, clientIp);
      noteCaller(context, caller, request.headers);

      const settings = await readApiSettings();
      const accessError =
        checkAccountAccess(caller, settings.eligibility) ??
        (spec.ipAllowlist === false ? undefined : checkIpAccess(caller, clientIp)) ??
        (requireFunding ? checkSupplierCallFunding(caller) : undefined);
      // Every keyed answer counts toward the key's limits, refusals included.
      const decision = await limit;
      limitHeaders = decision.headers;
      if (accessError) throw accessError;
      if (!decision.allowed)
        throw new ApiError("RATE_LIMIT", { headers: { "retry-after": String(decision.retryAfterSeconds) } });
      touchKeyLastUsed(caller);

      const closedBy = closingSwitch(spec.action, settings);
      if (closedBy && spec.action !== "order") throw new ApiError(closedBy);

      let body: unknown;
      if (spec.body) {
        const read = await readBody(request, spec.body, spec.aliases, maxBodyBytes);
        // While closed, a body that cannot be read cannot be a repeat: the switch refuses it.
        if (!read.ok) throw closedBy ? new ApiError(closedBy) : read.error;
        body = read.value;
      }
      let query: unknown;
      if (spec.query) {
        const parsed = spec.query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
        if (!parsed.success)
          throw new ApiError("INVALID_REQUEST", { extra: { details: describeIssues(parsed.error) } });
        query = parsed.data;
      }

      const result = await spec.handle({
        request,
        caller,
        clientIp,
        body: body as never,
        query: query as never,
        params,
        settings,
        closedBy,
      });
      return withHeaders(result instanceof Response ? result : jsonResponse(result), limitHeaders);
    } catch (error) {
      return withHeaders(toResponse(error), limitHeaders);
    }
  };

  return Object.assign(observeRoute(spec.path, handler), { spec: spec as unknown as PublicRoute["spec"] });
}
