import { jsonResponse } from "@/lib/http/errors";
import { checkHealth } from "@/lib/health/sql/check-health";

/** GET /healthz: no key, not rate-limited; 503 when the database does not answer. */
export async function getHealthz(): Promise<Response> {
  const health = await checkHealth();
  return jsonResponse(health, health.ok ? 200 : 503, { "cache-control": "no-store" });
}
