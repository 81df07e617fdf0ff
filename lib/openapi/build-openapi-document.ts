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
];
const IP_ERRORS: ErrorKey[] = ["IP_ALLOWLIST_REQUIRED", "IP_NOT_ALLOWED"];
const BODY_ERRORS: ErrorKey[] = ["INVALID_BODY", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

function describeError(key: ErrorKey): string {
  const entry = errorCatalogue[key];
  return `\`${key}\` (${entry.error}): ${entry.when}`;
}

/** The body the API answers for this code (as `errorBody` builds it), with a `details` entry where it has one. */
function errorExample(key: ErrorKey) {
  const details =
    key === "INVALID_BODY" ? { details: [{ field: "quantity", message: "Too big: expected number to be <=10" }] } : {};
  return { summary: errorCatalogue[key].error, value: { ...errorBody(key), ...details } };
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

export function buildOpenApiDocument(routes: PublicRoute[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "ApiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: `Your API key (format ${API_KEY_PATTERN.source}), issued by the bot's /newkey`,
  });
  registry.registerComponent("securitySchemes", "BearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "The same API key as `Authorization: Bearer <key>`",
  });

  for (const { spec } of routes) {
    const access = spec.ipAllowlist === false ? ACCESS_ERRORS.filter((key) => !IP_ERRORS.includes(key)) : ACCESS_ERRORS;
    const errors = [
      ...access,
      ...(spec.body ? BODY_ERRORS : []),
      ...(spec.query ? (["INVALID_REQUEST"] as ErrorKey[]) : []),
      ...spec.errors,
    ];
    if (spec.action === "order") errors.push("MAINTENANCE", "API_ORDER_DISABLED");
    if (spec.action === "redeem") errors.push("MAINTENANCE");
    const aliasNote = spec.aliases
      ? "\n\nAlso accepted field names: " +
        Object.entries(spec.aliases)
          .map(([canonical, names]) => `\`${canonical}\`: ${names.map((n) => `\`${n}\``).join(", ")}`)
          .join("; ") +
        "."
      : "";
    const operationErrors = [...new Set(errors)];
    registry.registerPath({
      "x-error-codes": operationErrors,
      method: spec.method.toLowerCase() as "get" | "post",
      path: spec.path.replace(/:([A-Za-z]+)/g, "{$1}"),
      tags: [spec.tag],
      summary: spec.summary,
      description: (spec.description ?? "") + aliasNote || undefined,
      request: {
        ...(spec.params ? { params: spec.params } : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
        ...(spec.body ? { body: { required: true, content: { "application/json": { schema: spec.body } } } } : {}),
      },
      responses: {
        200: {
          description: "Success",
          ...(spec.responseHeaders
            ? {
                headers: Object.fromEntries(
                  Object.entries(spec.responseHeaders).map(([name, description]) => [
                    name,
                    { description, schema: { type: "string" as const } },
                  ]),
                ),
              }
            : {}),
          content: {
            "application/json": { schema: spec.response },
            ...Object.fromEntries(
              Object.entries(spec.alternateContent ?? {}).map(([type, schema]) => [type, { schema }]),
            ),
          },
        },
        ...errorResponses(operationErrors),
      },
    });
  }

  registerWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Top-up API",
      version: serviceVersion,
      description: DESCRIPTION,
    },
    servers: [
      { url: "/", description: "This service" },
      { url: "/api", description: "This service, under /api" },
    ],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    // The error reference: every code the API answers, what it means and what to do. Each
    // operation's `x-error-codes` lists the codes it can answer.
    "x-error-codes": Object.fromEntries(listErrorCodes().map(({ code, ...entry }) => [code, entry])),
  });
  return attachOperationExamples(document);
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
  "## Errors",
  "Failures are `{ success: false, error, code }`: switch on `code`. Every code is listed here (and in `x-error-codes`); " +
    'each operation lists the codes it can answer. "Retry can succeed" means sending the same request again, unchanged, ' +
    "can succeed later (after `Retry-After` when the answer has one).",
  renderErrorReferenceList(),
].join("\n\n");
