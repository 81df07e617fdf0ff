// Builds the OpenAPI 3.1 document from the same route specs and zod schemas the handlers parse with.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorBody, errorCatalogue, type ErrorKey } from "../http/errors";
import { listErrorCodes, renderErrorReferenceList } from "../http/render-error-reference";
import { ErrorBody } from "../api-schemas/read-schemas";
import type { PublicRoute } from "../http/public-route";
import { serviceVersion } from "../health/sql/check-health";
import { API_KEY_PATTERN } from "../auth/api-key-format";
import { registerWebhooks } from "./register-webhooks";
import { attachOperationExamples } from "./attach-operation-examples";

/** Errors every keyed route can answer, before its own. */
const ACCESS_ERRORS: ErrorKey[] = [
  "MISSING_API_KEY",
  "INVALID_API_KEY_FORMAT",
  "INVALID_API_KEY",
  "TEST_MODE_OFF",
  "API_DISABLED",
  "API_DISABLED_BY_ADMIN",
  "API_NOT_ELIGIBLE",
  "ACCOUNT_BANNED",
  "ACCOUNT_RESTRICTED",
  "IP_ALLOWLIST_REQUIRED",
  "IP_NOT_ALLOWED",
  "RATE_LIMIT",
  "RATE_LIMIT_UNAVAILABLE",
  "SERVICE_UNAVAILABLE",
  "INTERNAL_ERROR",
];
const IP_ERRORS: ErrorKey[] = ["IP_ALLOWLIST_REQUIRED", "IP_NOT_ALLOWED"];
const BODY_ERRORS: ErrorKey[] = ["INVALID_BODY", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

/** One line per tag, in the order /docs shows them. */
const TAGS = [
  { name: "Catalog", description: "Game lines, packs and their prices." },
  { name: "Account", description: "Your wallet, its statement and the address the service sees." },
  { name: "Orders", description: "Placing orders and reading them back." },
  { name: "Verify and redeem", description: "Player checks and code redemption, answered by the supplier." },
  { name: "Webhooks", description: "Your account's events, and re-sending them to your endpoints." },
];

type HeaderObject = { description: string; required?: boolean; schema: Record<string, unknown> };

/**
 * The per-key limit headers (docs/api.md: Rate limits), sent on every answer to a known key: on every
 * 200, and on failures once the key was looked up (a 401 INVALID_JSON has them, a 401 for the key
 * itself or a 429 for bad keys has not), so optional on failures.
 */
function rateLimitHeaders(required: boolean): Record<string, HeaderObject> {
  const header = (description: string, schema: Record<string, unknown>): HeaderObject => ({
    description,
    ...(required ? { required: true } : {}),
    schema,
  });
  const seconds = { type: "integer", minimum: 0 };
  return {
    RateLimit: header(
      'Each window\'s calls admitted now and seconds until that grows: `"burst";r=9;t=1, "minute";r=79;t=60`',
      { type: "string" },
    ),
    "RateLimit-Policy": header('The key\'s quotas: `"burst";q=10;w=1, "minute";q=80;w=60`', { type: "string" }),
    "X-RateLimit-Limit": header("The binding window's quota (the one with fewer calls left)", seconds),
    "X-RateLimit-Remaining": header("Calls left in the binding window", seconds),
    "X-RateLimit-Reset": header("Seconds until the binding window frees a slot", seconds),
  };
}

/** Every answer names its request: the caller's X-Request-Id when it sent a usable one, else a new id. */
const REQUEST_ID_HEADER: Record<string, HeaderObject> = {
  "X-Request-Id": {
    description:
      "The request's id, as in the service's log line for it: the `X-Request-Id` you sent (1-128 of `A-Za-z0-9._:@/+=-`), or a UUID the service made. Quote it when you ask support about a request.",
    required: true,
    schema: { type: "string" },
  },
};

/** Retry-After on a status whose codes carry it: required when every one of them does. */
function retryAfterHeader(group: ErrorKey[]): Record<string, HeaderObject> {
  const carrying = group.filter((key) => "retryAfter" in errorCatalogue[key]);
  if (carrying.length === 0) return {};
  return {
    "Retry-After": {
      description: `Seconds to wait before retrying: sent with ${carrying.map((key) => `\`${key}\``).join(", ")}`,
      ...(carrying.length === group.length ? { required: true } : {}),
      schema: { type: "integer", minimum: 0 },
    },
  };
}

function describeError(key: ErrorKey): string {
  const entry = errorCatalogue[key];
  return `\`${key}\` (${entry.error}): ${entry.when}`;
}

/** The body the API answers for this code (as `errorBody` builds it), with a `details` entry where it has one. */
function errorExample(key: ErrorKey) {
  const extra =
    key === "INVALID_BODY"
      ? { details: [{ field: "quantity", message: "Too big: expected number to be <=10" }] }
      : key === "PAYLOAD_TOO_LARGE"
        ? { maxBytes: 16384 }
        : {};
  return { summary: errorCatalogue[key].error, value: { ...errorBody(key), ...extra } };
}

function errorResponses(keys: ErrorKey[]) {
  const byStatus = new Map<number, ErrorKey[]>();
  for (const key of keys) {
    const status = errorCatalogue[key].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), key]);
  }
  return Object.fromEntries(
    [...byStatus.entries()].map(([status, group]) => [
      status,
      {
        description: group.map(describeError).join("\n\n"),
        headers: { ...retryAfterHeader(group), ...rateLimitHeaders(false), ...REQUEST_ID_HEADER },
        content: {
          "application/json": {
            schema: ErrorBody,
            examples: Object.fromEntries(group.map((key) => [key, errorExample(key)])),
          },
        },
      },
    ]),
  );
}

type JsonSchema = { properties?: Record<string, JsonSchema>; required?: string[]; [key: string]: unknown };

/**
 * The request body as a client may send it: each alias the service accepts is a property too (same
 * schema), and a required field with aliases is "one of its names present", as is a list in
 * `documentRequired`: an allOf of anyOfs, each branch an object requiring one name, which JSON Schema
 * validators and openapi-typescript (an intersection of unions) both read that way. The zod schema
 * reads the canonical name only, after the wrapper has copied an alias onto it.
 */
function withAliases(
  schema: JsonSchema,
  aliases: Record<string, string[]>,
  documentRequired: (string | string[])[],
): JsonSchema {
  const properties = { ...schema.properties };
  const required = new Set([...(schema.required ?? []), ...documentRequired.filter((f) => typeof f === "string")]);
  const oneNameOf: string[][] = documentRequired.filter((f) => Array.isArray(f));
  for (const [canonical, names] of Object.entries(aliases)) {
    const { description: _description, ...shape } = properties[canonical] ?? {};
    for (const name of names) {
      properties[name] = {
        ...shape,
        description: `Alias of \`${canonical}\` (read when \`${canonical}\` is absent or null)`,
      };
    }
    if (required.delete(canonical)) oneNameOf.push([canonical, ...names]);
  }
  const result: JsonSchema = { ...schema, properties };
  delete result.required;
  if (required.size > 0) result.required = [...required];
  if (oneNameOf.length > 0) {
    result.allOf = oneNameOf.map((names) => ({
      anyOf: names.map((name) => {
        if (!properties[name]) throw new Error(`required body field ${name} is not in the schema`);
        const { description: _description, ...shape } = properties[name];
        return { type: "object", properties: { [name]: shape }, required: [name] };
      }),
    }));
  }
  return result;
}

export function buildOpenApiDocument(routes: PublicRoute[]) {
  const registry = new OpenAPIRegistry();
  registerSecuritySchemes(registry);
  for (const { spec } of routes) registerOperation(registry, spec);
  registerWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Top-up API",
      version: serviceVersion,
      description: DESCRIPTION,
      // No licence is granted for this API or its document (SPDX's form for a licence it does not list).
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      contact: { name: "Support, through the service's Telegram bot" },
    },
    tags: TAGS,
    servers: [
      { url: "/", description: "This service" },
      { url: "/api", description: "This service, under /api" },
    ],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    // The error reference: every code the API answers, what it means and what to do. Each
    // operation's `x-error-codes` lists the codes it can answer.
    "x-error-codes": Object.fromEntries(listErrorCodes().map(({ code, ...entry }) => [code, entry])),
  });
  for (const { spec } of routes) documentAliases(document, spec);
  return attachOperationExamples(document, routes);
}

type RouteSpec = PublicRoute["spec"];
type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

function registerSecuritySchemes(registry: OpenAPIRegistry): void {
  registry.registerComponent("securitySchemes", "ApiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: `Your API key (format ${API_KEY_PATTERN.source}), issued by the bot's /newkey; a test key (svc_test_...) by /newkey test: play money, the sandbox, livemode false (README: Test mode)`,
  });
  registry.registerComponent("securitySchemes", "BearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "The same API key as `Authorization: Bearer <key>`",
  });
}

/** Every error code a route can answer: access, body and query errors, its own, and its switches'. */
function operationErrorCodes(spec: RouteSpec): ErrorKey[] {
  const access = spec.ipAllowlist === false ? ACCESS_ERRORS.filter((key) => !IP_ERRORS.includes(key)) : ACCESS_ERRORS;
  const errors = [
    ...access,
    ...(spec.body ? BODY_ERRORS : []),
    ...(spec.query ? (["INVALID_REQUEST"] as ErrorKey[]) : []),
    ...spec.errors,
  ];
  if (spec.action === "order") errors.push("MAINTENANCE", "API_ORDER_DISABLED");
  if (spec.action === "redeem") errors.push("MAINTENANCE");
  return [...new Set(errors)];
}

function aliasNote(aliases: RouteSpec["aliases"]): string {
  if (!aliases) return "";
  const names = Object.entries(aliases)
    .map(([canonical, names]) => `\`${canonical}\`: ${names.map((n) => `\`${n}\``).join(", ")}`)
    .join("; ");
  return (
    "\n\nAlso accepted field names (each in the body schema): " +
    names +
    ". When a body carries several names of one field, the first name listed that is not null is read."
  );
}

function successResponse(spec: RouteSpec, response: z.ZodType) {
  return {
    description: "Success",
    headers: {
      ...rateLimitHeaders(true),
      ...REQUEST_ID_HEADER,
      ...Object.fromEntries(
        Object.entries(spec.responseHeaders ?? {}).map(([name, { description, required }]) => [
          name,
          { description, ...(required ? { required } : {}), schema: { type: "string" as const } },
        ]),
      ),
    },
    content: {
      "application/json": { schema: response },
      ...Object.fromEntries(Object.entries(spec.alternateContent ?? {}).map(([type, schema]) => [type, { schema }])),
    },
  };
}

function registerOperation(registry: OpenAPIRegistry, spec: RouteSpec): void {
  const operationErrors = operationErrorCodes(spec);
  registry.registerPath({
    operationId: spec.operationId,
    "x-error-codes": operationErrors,
    method: spec.method.toLowerCase() as "get" | "post",
    path: documentPath(spec),
    tags: [spec.tag],
    summary: spec.summary,
    description: (spec.description ?? "") + aliasNote(spec.aliases) || undefined,
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      ...(spec.body ? { body: { required: true, content: { "application/json": { schema: spec.body } } } } : {}),
    },
    responses: {
      ...(spec.response ? { 200: successResponse(spec, spec.response) } : {}),
      ...errorResponses(operationErrors),
    },
  });
}

function documentPath(spec: RouteSpec): string {
  return spec.path.replace(/:([A-Za-z]+)/g, "{$1}");
}

/** The body schema lists each field's aliases and the fields the handler requires itself. */
function documentAliases(document: OpenApiDocument, spec: RouteSpec): void {
  if (!spec.aliases && !spec.documentRequired) return;
  const operation = document.paths?.[documentPath(spec)]?.[spec.method.toLowerCase() as "get" | "post"];
  const body = operation?.requestBody;
  const media = body && "content" in body ? body.content["application/json"] : undefined;
  if (!media?.schema) throw new Error(`${spec.method} ${spec.path}: aliases without a body`);
  media.schema = withAliases(media.schema as JsonSchema, spec.aliases ?? {}, spec.documentRequired ?? []) as never;
}

// Markdown: /docs renders it above the operations, the error reference (one item per code) as its last section.
const DESCRIPTION = [
  "Prepaid-wallet ordering API for game top-ups, game keys and gift cards. Every path is served at the root and, " +
    "identically, under `/api`. Bodies are JSON. Authenticate with `X-API-Key: <key>` or `Authorization: Bearer <key>` " +
    "(the demo key is printed by `npm start`). Limits: 10 calls per rolling second and 80 per rolling minute per key.",
  "Every operation below has request and response examples and code samples for curl and the TypeScript client " +
    "(`createClient({ baseUrl, apiKey })`). Both read `TOPUP_API_URL` (for example `http://localhost:3000`) and " +
    "`TOPUP_API_KEY` from the environment, as the README's quickstart sets them: " +
    "`export TOPUP_API_URL=http://localhost:3000 TOPUP_API_KEY=svc_...`.",
  "Downloads: this document, [/openapi.json](/openapi.json), and the same operations as a Postman collection, " +
    "[/postman.json](/postman.json) (import it, then set its `apiKey` and `baseUrl` variables; `newman run` runs it " +
    "too).",
  "## Errors",
  "Failures are `{ success: false, error, code }`: switch on `code`. Every code is listed here (and in `x-error-codes`); " +
    'each operation lists the codes it can answer. "Retry can succeed" means sending the same request again, unchanged, ' +
    "can succeed later (after `Retry-After` when the answer has one).",
  renderErrorReferenceList(),
].join("\n\n");
