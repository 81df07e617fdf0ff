// The types the generated methods (./generated/operations.ts) are written in: an operation's 200
// body, its request body and query as the client takes them, and the one function each method calls.
import type { paths } from "./generated/openapi.js";

type Method = "get" | "post";
type JsonBody<T> = T extends { content: { "application/json": infer B } } ? B : never;
/** Query parameters arrive at the API as text; the client takes numbers where the API reads numbers. */
type Numeric<Q> = {
  [K in keyof Q]?: Q[K] extends string | undefined ? (string extends NonNullable<Q[K]> ? string | number : Q[K]) : Q[K];
};

export type Ok<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: { 200: infer R } }
  ? JsonBody<R>
  : never;
export type RequestBody<P extends keyof paths> = paths[P]["post"] extends { requestBody?: infer B }
  ? JsonBody<NonNullable<B>>
  : never;
export type Query<P extends keyof paths, M extends Method = "get"> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? Numeric<NonNullable<Q>>
  : never;

export interface CallOptions {
  signal?: AbortSignal;
}

/** What an operation's request carries besides its method and path. */
export interface OperationRequest {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** Sends one operation's request: its 200 body, or the answer thrown as a TopupApiError. */
export type Send = <P extends keyof paths, M extends Method>(
  method: M,
  path: P,
  request: OperationRequest,
  call: CallOptions,
) => Promise<Ok<P, M>>;
