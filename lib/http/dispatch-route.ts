// The lean host's answer for a matched request: the route's handler, or the catalogue's JSON 404 /
// 405 with Allow, and a JSON 500 for anything a handler throws.
import { errorResponse } from "./errors";
import type { RouteMatch } from "./router";
import type { RequestObservation } from "../observability/observe-request";

export async function dispatchRoute(
  match: RouteMatch,
  request: Request,
  peerIp: string,
  onError: (error: unknown) => void,
  observation?: RequestObservation,
): Promise<Response> {
  try {
    if (match.kind === "not-found") return errorResponse("NOT_FOUND");
    if (match.kind === "method-not-allowed") {
      return errorResponse("METHOD_NOT_ALLOWED", { headers: { allow: match.allow.join(", ") } });
    }
    return await match.handler(request, { params: Promise.resolve(match.params), peerIp, observation });
  } catch (error) {
    onError(error);
    return errorResponse("INTERNAL_ERROR");
  }
}
