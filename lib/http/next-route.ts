// Serves the route table as Next.js route handlers (app/api/**/route.ts). The request is matched
// by the same router the lean host uses, on the request's own path, so both hosts find the same
// handler, the same params and the same JSON 404 / 405: a route file only names its path. Every
// method is exported, so Next never answers a method itself (its own 405 has no JSON body and its
// OPTIONS is automatic).
import type { RouteMatch } from "./router";
import { dispatchRoute } from "./dispatch-route";
import { errorResponse } from "./errors";
import { installPeerAddressStamp, PeerAddressUnknownError, readPeerAddress } from "./peer-address";

export interface ApiRouter {
  match(method: string, pathname: string): RouteMatch;
  /** True when the table has this path (":param" segments included) at some prefix. */
  has(path: string): boolean;
}

type NextHandler = (request: Request) => Promise<Response>;

export interface NextRouteHandlers {
  GET: NextHandler;
  HEAD: NextHandler;
  POST: NextHandler;
  PUT: NextHandler;
  PATCH: NextHandler;
  DELETE: NextHandler;
  OPTIONS: NextHandler;
}

function logError(error: unknown) {
  console.error("[api] unhandled error:", error);
}

/**
 * The handlers for one route file. `path` is the table path the file stands for (checked when the
 * module loads, so a route file for a path the table lacks fails at once); omitted for the
 * catch-all that answers the JSON 404 for every other /api path.
 */
export function createNextRouteHandlers(router: ApiRouter, path?: string): NextRouteHandlers {
  installPeerAddressStamp();
  if (path !== undefined && !router.has(path))
    throw new Error(`route file for ${path}, which the route table does not have`);
  const handle: NextHandler = async (request) => {
    let peerIp: string;
    try {
      peerIp = readPeerAddress(request);
    } catch (error) {
      // Only a request that reached `next start` while it was starting: its client address is not
      // known, so it is not served; a retry a moment later is.
      if (error instanceof PeerAddressUnknownError)
        return errorResponse("SERVICE_UNAVAILABLE", { headers: { "retry-after": "1" } });
      logError(error);
      return errorResponse("INTERNAL_ERROR");
    }
    return dispatchRoute(router.match(request.method, new URL(request.url).pathname), request, peerIp, logError);
  };
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}
