// GET /healthz: no key, not rate-limited; 503 when the database does not answer.
import { jsonResponse } from "@/lib/http/errors";
import { otherMethods } from "@/lib/http/route-methods";
import { checkHealth } from "@/lib/health/sql/check-health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return jsonResponse(health, health.ok ? 200 : 503, { "cache-control": "no-store" });
}

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
