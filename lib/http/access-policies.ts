// The wrapper's view of runtime settings and rate limits, in one place.
// INTEGRATION POINT: replaced by lib/settings and lib/ratelimit once they land (same session).
import { getPool } from "../db/pool";
import type { EligibilityRule } from "../auth/authenticate-api-key";

export interface ApiSettings {
  maintenance: boolean;
  apiOrderDisabled: boolean;
  eligibility?: EligibilityRule;
}

export interface LimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
  headers?: Record<string, string>;
}

export async function readApiSettings(): Promise<ApiSettings> {
  const { rows } = await getPool().query<{ key: string; value: unknown }>(
    `SELECT key, value FROM settings WHERE key IN ('MAINTENANCE', 'API_ORDER_DISABLED', 'API_ELIGIBILITY')`,
  );
  const byKey = new Map(rows.map((row) => [row.key, row.value]));
  return {
    maintenance: byKey.get("MAINTENANCE") === true,
    apiOrderDisabled: byKey.get("API_ORDER_DISABLED") === true,
    eligibility: byKey.get("API_ELIGIBILITY") as EligibilityRule | undefined,
  };
}

export async function applyKeyRateLimit(_keyId: number): Promise<LimitDecision> {
  return { allowed: true, retryAfterSeconds: 0 };
}

export function guardFailedAuth(_clientIp: string): void {}

export async function noteFailedAuth(_clientIp: string): Promise<void> {}
