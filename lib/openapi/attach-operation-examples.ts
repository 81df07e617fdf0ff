// Puts each operation's examples (operation-examples.ts) and code samples (code-samples.ts) into the
// generated document: parameter `example`s, request-body and 200 `examples`, and `x-codeSamples`.
// Kept apart from the zod schemas, which describe shapes; the examples are the docs' concrete calls.
import { operationExamples } from "./operation-examples";
import { codeSamples } from "./code-samples";

interface Operation {
  parameters?: { in: string; name: string; example?: unknown; schema?: { type?: string } }[];
  requestBody?: { content: Record<string, { examples?: unknown }> };
  responses: Record<string, { content?: Record<string, { examples?: unknown }> }>;
  "x-codeSamples"?: unknown;
}

export function attachOperationExamples<D extends { paths?: Record<string, unknown> }>(document: D): D {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      const example = operationExamples[`${method.toUpperCase()} ${path}`];
      if (!example) continue; // tests/unit/openapi-examples.test.ts fails for it
      for (const parameter of operation.parameters ?? []) {
        const value =
          parameter.in === "path"
            ? example.params?.[parameter.name]
            : parameter.in === "query"
              ? example.query?.[parameter.name]
              : undefined;
        // The examples are the query's text; an integer parameter's example is the number it reads.
        if (value !== undefined) parameter.example = parameter.schema?.type === "integer" ? Number(value) : value;
      }
      const body = operation.requestBody?.content["application/json"];
      if (body && example.body) body.examples = { example: { summary: "Request", value: example.body } };
      const success = operation.responses["200"]?.content?.["application/json"];
      if (success && example.responses) success.examples = example.responses;
      operation["x-codeSamples"] = codeSamples(method.toUpperCase(), path, example);
    }
  }
  return document;
}
