// GET /metrics: the web process's Prometheus metrics, with the service-wide gauges read from the
// database (lib/observability/sql/read-service-state.ts). Only with `Authorization: Bearer
// <METRICS_TOKEN>`; without METRICS_TOKEN it is not served here (METRICS_PORT serves it on an internal port).
import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/config/env";
import { errorResponse } from "@/lib/http/errors";
import { otherMethods } from "@/lib/http/route-methods";
import { renderMetrics } from "@/lib/observability/metrics";
import { readServiceState } from "@/lib/observability/sql/read-service-state";

export const dynamic = "force-dynamic";

function presentsToken(authorization: string | null, token: string): boolean {
  const presented = Buffer.from(/^bearer\s+(.+)$/i.exec(authorization?.trim() ?? "")?.[1]?.trim() ?? "");
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

export async function GET(request: Request): Promise<Response> {
  const token = env().metrics.token;
  if (!token) return errorResponse("NOT_FOUND");
  if (!presentsToken(request.headers.get("authorization"), token)) {
    return new Response("a bearer token is required (METRICS_TOKEN)\n", {
      status: 401,
      headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' },
    });
  }
  await readServiceState();
  const { contentType, body } = await renderMetrics();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
