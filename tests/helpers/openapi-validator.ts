// Checks real requests and answers against the OpenAPI document the server serves. The document is
// OpenAPI 3.1, whose schemas are JSON Schema 2020-12: @seriousme/openapi-schema-validator checks the
// document itself against the OpenAPI 3.1 schema and resolves its $refs, and Ajv's 2020-12 validator
// checks every body, parameter and header against its schema. (openapi-backend and the
// openapi-request/response-validator pair read schemas as draft-07 / OpenAPI 3.0, and pass an answer
// whose status the document does not list.) Each check returns the problems it found; none means the
// document describes the exchange.
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020";
import ajvFormats from "ajv-formats";
import { API_SECURITY_HEADERS } from "@/lib/http/security-headers";

type Schema = Record<string, unknown> & { type?: string | string[] };

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}

interface HeaderObject {
  required?: boolean;
  schema: Schema;
}

interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema: Schema }>;
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}

interface ResolvedDocument {
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
}

/** A request exactly as it was sent. */
export interface SentRequest {
  method: string;
  /** Path and query string, e.g. /history?limit=5. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** An answer as it was received. */
export interface ReceivedResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Headers every answer may carry that no operation documents: the transport's, and the security
 * headers every JSON answer has (docs/security.md). Any other header an answer carries must be
 * declared on that answer.
 */
const GENERAL_HEADERS = new Set([
  "content-type",
  "content-length",
  "transfer-encoding",
  "date",
  "connection",
  "keep-alive",
  "cache-control",
  "vary",
  "strict-transport-security",
  ...Object.keys(API_SECURITY_HEADERS),
]);

const addFormats = ajvFormats as unknown as (ajv: Ajv2020) => void;

export async function loadOpenApiValidator(document: unknown) {
  const validator = new Validator();
  const result = await validator.validate(document as Parameters<Validator["validate"]>[0]);
  if (!result.valid) throw new Error(`the document is not valid OpenAPI: ${JSON.stringify(result.errors)}`);
  if (validator.version !== "3.1") throw new Error(`expected OpenAPI 3.1, got ${validator.version}`);
  const resolved = validator.resolveRefs() as unknown as ResolvedDocument;

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const compiled = new WeakMap<Schema, ValidateFunction>();
  function schemaProblems(schema: Schema, value: unknown, what: string): string[] {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** A parameter or header as text, read as its schema's type says (only integers need reading). */
  function typedValue(schema: Schema, text: string): unknown {
    const integer = schema.type === "integer" || (Array.isArray(schema.type) && schema.type.includes("integer"));
    return integer && /^-?\d+$/.test(text) ? Number(text) : text;
  }

  const routes = Object.entries(resolved.paths).map(([template, item]) => ({
    template,
    item,
    pattern: new RegExp(`^${template.replace(/\{([^}]+)\}/g, "(?<$1>[^/]+)")}$`),
  }));

  function match(method: string, pathname: string) {
    for (const { template, item, pattern } of routes) {
      const found = pattern.exec(pathname);
      const operation = found && item[method.toLowerCase()];
      if (operation) return { template, operation, pathParams: { ...found.groups } as Record<string, string> };
    }
    return undefined;
  }

  function mediaType(contentType: string | null | undefined): string | undefined {
    return contentType?.split(";")[0]?.trim().toLowerCase() || undefined;
  }

  return {
    operationIds(): string[] {
      return routes.flatMap(({ item }) => Object.values(item).map((operation) => operation.operationId));
    },

    operationFor(request: SentRequest): Operation | undefined {
      return match(request.method, new URL(request.url, "http://x").pathname)?.operation;
    },

    /** What the document refuses in this request (a validating gateway would refuse it for these). */
    checkRequest(request: SentRequest): string[] {
      const url = new URL(request.url, "http://x");
      const found = match(request.method, url.pathname);
      if (!found) return [`no operation for ${request.method} ${url.pathname}`];
      const { operation, pathParams } = found;
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
      const problems: string[] = [];

      const security = operation.security ?? resolved.security ?? [];
      const presented = (scheme: string) =>
        scheme === "ApiKeyHeader"
          ? headers["x-api-key"] !== undefined
          : scheme === "BearerAuth" && /^Bearer /i.test(headers.authorization ?? "");
      if (security.length > 0 && !security.some((requirement) => Object.keys(requirement).every(presented)))
        problems.push("no credentials of a security scheme the operation accepts");

      for (const parameter of operation.parameters ?? []) {
        const text =
          parameter.in === "path"
            ? pathParams[parameter.name]
            : parameter.in === "query"
              ? (url.searchParams.get(parameter.name) ?? undefined)
              : headers[parameter.name.toLowerCase()];
        if (text === undefined) {
          if (parameter.required) problems.push(`${parameter.in} parameter ${parameter.name} is required`);
          continue;
        }
        problems.push(
          ...schemaProblems(parameter.schema, typedValue(parameter.schema, text), `${parameter.in}.${parameter.name}`),
        );
      }

      if (!operation.requestBody) {
        if (request.body !== undefined && request.body !== "") problems.push("a body where the operation takes none");
        return problems;
      }
      if (request.body === undefined || request.body === "") {
        if (operation.requestBody.required) problems.push("the request body is required");
        return problems;
      }
      const type = mediaType(headers["content-type"]);
      const media = type ? operation.requestBody.content[type] : undefined;
      if (!media) return [...problems, `request content type ${type} is not one the operation takes`];
      let body: unknown;
      try {
        body = JSON.parse(request.body);
      } catch {
        return [...problems, "the request body is not JSON"];
      }
      return [...problems, ...schemaProblems(media.schema, body, "body")];
    },

    /** What in this answer the document does not describe. */
    checkResponse(request: SentRequest, response: ReceivedResponse): string[] {
      const operation = match(request.method, new URL(request.url, "http://x").pathname)?.operation;
      if (!operation) return [`no operation for ${request.method} ${request.url}`];
      const declared = operation.responses[String(response.status)];
      if (!declared) {
        return [
          `status ${response.status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(", ")})`,
        ];
      }
      const problems: string[] = [];

      const declaredHeaders = Object.fromEntries(
        Object.entries(declared.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]),
      );
      for (const [name, header] of Object.entries(declaredHeaders)) {
        const value = response.headers.get(name);
        if (value === null) {
          if (header.required) problems.push(`required header ${name} is missing`);
          continue;
        }
        problems.push(...schemaProblems(header.schema, typedValue(header.schema, value), `header ${name}`));
      }
      response.headers.forEach((_value, name) => {
        if (!GENERAL_HEADERS.has(name) && !(name in declaredHeaders))
          problems.push(`header ${name} is not declared on ${response.status}`);
      });

      const content = declared.content ?? {};
      if (Object.keys(content).length === 0) {
        if (response.text !== "") problems.push("a body where the answer declares none");
        return problems;
      }
      const type = mediaType(response.headers.get("content-type"));
      const media = type ? content[type] : undefined;
      if (!media) return [...problems, `content type ${type} is not declared on ${response.status}`];
      if (type === "application/json") {
        let body: unknown;
        try {
          body = JSON.parse(response.text);
        } catch {
          return [...problems, "the body is not JSON"];
        }
        problems.push(...schemaProblems(media.schema, body, "body"));
      } else {
        problems.push(...schemaProblems(media.schema, response.text, "body"));
      }
      return problems;
    },
  };
}

export type OpenApiValidator = Awaited<ReturnType<typeof loadOpenApiValidator>>;
