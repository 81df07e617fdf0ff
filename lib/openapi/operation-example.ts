// The shape of a route's `example` (PublicRouteSpec): the concrete call /docs and /openapi.json show
// for the operation. tests/unit/openapi-examples.test.ts parses every example with the route's own
// zod schemas, so none can drift from what the API accepts and answers.

interface NamedExample {
  summary: string;
  value: unknown;
}

export interface OperationExample {
  /** Path parameters, by name. */
  params?: Record<string, string>;
  /** Query parameters as sent on the URL (strings). */
  query?: Record<string, string>;
  /** The JSON body. */
  body?: Record<string, unknown>;
  /** Examples of the 200 answer by name, the first being the usual one; null for an operation that never succeeds. */
  responses: Record<string, NamedExample> | null;
}
