// Next.js answers a method a route file does not export itself (an empty 405, an automatic
// OPTIONS); these give it the JSON answers the lean host gives, so both hosts answer alike.
import { errorResponse } from "./errors";
import type { HttpMethod, RouteHandler } from "./router";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const satisfies HttpMethod[];

/**
 * The methods a route file does not define: HEAD answers as GET where GET is defined, every other
 * one the catalogue's 405 with Allow. `export const { PUT, ... } = otherMethods({ GET })`.
 */
export function otherMethods<D extends Partial<Record<HttpMethod, RouteHandler>>>(
  defined: D,
): Record<Exclude<HttpMethod, keyof D>, RouteHandler> {
  const allow = Object.keys(defined).join(", ");
  const notAllowed: RouteHandler = () => errorResponse("METHOD_NOT_ALLOWED", { headers: { allow } });
  const handlers: Partial<Record<HttpMethod, RouteHandler>> = {};
  for (const method of METHODS) {
    if (method in defined) continue;
    handlers[method] = method === "HEAD" && defined.GET ? defined.GET : notAllowed;
  }
  return handlers as Record<Exclude<HttpMethod, keyof D>, RouteHandler>;
}

/** Every method answers the catalogue's JSON 404: the /api paths no route file serves. */
export function notFoundMethods(): Record<HttpMethod, RouteHandler> {
  const notFound: RouteHandler = () => errorResponse("NOT_FOUND");
  return Object.fromEntries(METHODS.map((method) => [method, notFound])) as Record<HttpMethod, RouteHandler>;
}
