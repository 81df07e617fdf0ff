// Every operation of the OpenAPI document carries what /docs shows integrators: a request example
// (path and query parameters, body) where it takes one, examples of its answers (the 200 and every
// error code it lists), and code samples for curl and the TypeScript client. The examples (each
// route spec's `example`) are parsed with the route's own zod schemas, so an example the API would
// refuse, or an answer it could not give, fails here.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { CLIENT_PACKAGE } from "@/lib/openapi/code-samples";
import { ErrorBody } from "@/lib/api-schemas/read-schemas";
import { errorCatalogue, type ErrorKey } from "@/lib/http/errors";
import { publicRoutes } from "@/app/api/public-routes";

const document = buildOpenApiDocument(publicRoutes) as any;
const operations = publicRoutes.map(({ spec }) => {
  const path = spec.path.replace(/:([A-Za-z]+)/g, "{$1}");
  return { key: `${spec.method} ${path}`, spec, path, operation: document.paths[path]?.[spec.method.toLowerCase()] };
});

function examplesOf(content: any): unknown[] {
  const media = content?.["application/json"];
  return [
    ...(media?.example !== undefined ? [media.example] : []),
    ...Object.values(media?.examples ?? {}).map((e: any) => e.value),
  ];
}

function expectParses(schema: z.ZodType, value: unknown, what: string) {
  const result = schema.safeParse(value);
  expect(result.success, `${what}: ${result.success ? "" : JSON.stringify(result.error.issues)}`).toBe(true);
}

describe.each(operations)("$key", ({ spec, path, operation }) => {
  it("is in the document", () => expect(operation).toBeDefined());

  it("has a request example for each of its parameters and its body, which the route accepts", () => {
    const parameters: any[] = operation.parameters ?? [];
    for (const parameter of parameters.filter((p) => p.in === "path")) {
      expect(parameter.example, `path parameter ${parameter.name}`).toBeDefined();
    }
    if (spec.params)
      expectParses(
        spec.params,
        Object.fromEntries(parameters.filter((p) => p.in === "path").map((p) => [p.name, p.example])),
        "params",
      );
    if (spec.query) {
      // As the query string carries them: an integer parameter's example is a number in the document.
      const query = Object.fromEntries(
        parameters.filter((p) => p.in === "query" && p.example !== undefined).map((p) => [p.name, String(p.example)]),
      );
      expect(Object.keys(query).length, "at least one query parameter has an example").toBeGreaterThan(0);
      expectParses(spec.query, query, "query");
    }
    if (spec.body) {
      const bodies = examplesOf(operation.requestBody.content);
      expect(bodies.length, "request body examples").toBeGreaterThan(0);
      for (const body of bodies) expectParses(spec.body, body, "body");
    } else {
      expect(operation.requestBody).toBeUndefined();
    }
  });

  it("has an example of every answer it documents, each one the API could give", () => {
    if (spec.example.responses === null) {
      // It never succeeds: it documents no 200, and its answer is an error, whose example is checked below.
      expect(operation.responses["200"]).toBeUndefined();
      expect(spec.response).toBeUndefined();
      expect(spec.errors).toContain("NOT_IMPLEMENTED");
    } else {
      const successes = examplesOf(operation.responses["200"].content);
      expect(successes.length, "200 examples").toBeGreaterThan(0);
      for (const value of successes) expectParses(spec.response!, value, "200 example");
    }
    for (const code of operation["x-error-codes"] as ErrorKey[]) {
      const status = String(errorCatalogue[code].status);
      const example = operation.responses[status]?.content?.["application/json"]?.examples?.[code]?.value;
      expect(example, `${status} example for ${code}`).toBeDefined();
      expectParses(ErrorBody, example, `${code} example`);
      expect(example).toMatchObject({ success: false, error: errorCatalogue[code].error, code });
    }
  });

  it("has code samples for curl and the TypeScript client, made from its examples", () => {
    const samples: { lang: string; label: string; source: string }[] = operation["x-codeSamples"];
    const curl = samples.find((s) => s.label === "curl");
    const typescript = samples.find((s) => s.label === "TypeScript client");
    expect(curl?.lang).toBe("Shell");
    expect(curl!.source).toMatch(
      new RegExp(
        `^curl -sS${spec.method === "GET" ? "" : ` -X ${spec.method}`} "\\$TOPUP_API_URL${path.replace(/\{\w+\}/g, '[^"?]+')}`,
      ),
    );
    expect(curl!.source).toContain(`-H "X-API-Key: $TOPUP_API_KEY"`);
    const sent = /-d '(.*)'$/m.exec(curl!.source);
    if (spec.body) expect(JSON.parse(sent![1]!)).toEqual(examplesOf(operation.requestBody.content)[0]);
    else expect(sent).toBeNull();
    expect(typescript?.lang).toBe("TypeScript");
    expect(typescript!.source).toContain(`import { createClient } from "${CLIENT_PACKAGE}";`);
    expect(typescript!.source).toContain(
      "createClient({ baseUrl: process.env.TOPUP_API_URL!, apiKey: process.env.TOPUP_API_KEY! })",
    );
    expect(typescript!.source).toMatch(/await client\.\w+\(/);
    // The client has a method, named by the operationId, for every operation that can succeed.
    if (spec.response) expect(typescript!.source).toContain(`await client.${spec.operationId}(`);
  });
});

describe("the examples and the document", () => {
  it("shows the error reference, every code, in the description the docs page renders", () => {
    const description: string = document.info.description;
    expect(description).toContain("## Errors");
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      const item = description.split("\n").find((line) => line.startsWith(`- **\`${code}\`** (`));
      expect(item, code).toContain(
        `(${entry.status}, \`error\`: ${entry.error}; a retry can succeed: ${entry.retryable ? "yes" : "no"})`,
      );
      expect(item).toContain(entry.action);
    }
  });
});
