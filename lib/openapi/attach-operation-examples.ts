// Puts each route's example (its spec's `example`) and code samples (code-samples.ts) into the
// generated document: parameter `example`s, request-body and 200 `examples`, and `x-codeSamples`.
// Kept apart from the zod schemas, which describe shapes; the examples are the docs' concrete calls.
import type { PublicRoute } from "../http/public-route";
import { codeSamples } from "./code-samples";

interface Operation {
  parameters?: { in: string; name: string; example?: unknown; schema?: { type?: string } }[];
  requestBody?: { content: Record<string, { examples?: unknown }> };
  responses: Record<string, { content?: Record<string, { examples?: unknown }> }>;
  "x-codeSamples"?: unknown;
}

export function attachOperationExamples<D extends { paths?: Record<string, unknown> }>(
  document: D,
  routes: PublicRoute[],
): D {
  for (const { spec } of routes) {
    const path = spec.path.replace(/:([A-Za-z]+)/g, "{$1}");
    const operation = (document.paths?.[path] as Record<string, Operation>)[spec.method.toLowerCase()]!;
    const example = spec.example;
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
    operation["x-codeSamples"] = codeSamples(spec);
  }
  return document;
}
