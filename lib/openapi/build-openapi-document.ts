// Builds the OpenAPI 3.1 document from the same route specs and zod schemas the handlers parse with.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorCatalogue, type ErrorKey } from "../http/errors";
import { ErrorBody } from "../api-schemas/read-schemas";
import type { PublicRoute } from "../http/public-route";
import { serviceVersion } from "../health/check-health";
import { API_KEY_PATTERN } from "../auth/api-key-format";

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
const BODY_ERRORS: ErrorKey[] = ["INVALID_BODY", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

function describeError(key: ErrorKey): string {
  const entry: { error: string; code?: string } = errorCatalogue[key];
  return entry.code ? `\`${entry.code}\` (${entry.error})` : `\`${entry.error}\``;
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
        description: group.map(describeError).join(", "),
        content: { "application/json": { schema: ErrorBody } },
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
    const errors = [...ACCESS_ERRORS, ...(spec.body ? BODY_ERRORS : []), ...(spec.query ? (["INVALID_REQUEST"] as ErrorKey[]) : []), ...spec.errors];
    if (spec.action === "order") errors.push("MAINTENANCE", "API_ORDER_DISABLED");
    if (spec.action === "redeem") errors.push("MAINTENANCE");
    const aliasNote = spec.aliases
      ? "\n\nAlso accepted field names: " +
        Object.entries(spec.aliases)
          .map(([canonical, names]) => `\`${canonical}\`: ${names.map((n) => `\`${n}\``).join(", ")}`)
          .join("; ") +
        "."
      : "";
    registry.registerPath({
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
        200: { description: "Success", content: { "application/json": { schema: spec.response } } },
        ...errorResponses([...new Set(errors)]),
      },
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Top-up API",
      version: serviceVersion,
      description:
        "Prepaid-wallet ordering API for game top-ups, game keys and gift cards. Every path is served at the root and, " +
        "identically, under `/api`. Bodies are JSON. Failures are `{ success: false, error, code? }`: switch on `code` " +
        "when present. Limits: 10 calls per rolling second and 80 per rolling minute per key.",
    },
    servers: [{ url: "/" }, { url: "/api" }],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
  });
}
