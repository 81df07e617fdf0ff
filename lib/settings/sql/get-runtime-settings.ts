// The switches every API request obeys, read by every instance the same way: one raw query, kept in
// memory for at most SETTINGS_CACHE_MS (default 1000; keep it at most 1000), so a change made
// anywhere is obeyed everywhere within two seconds. Concurrent callers share one query. When the database cannot be
// read, the last value is served (logged once per outage) for at most MAX_STALE_MS, then the error
// surfaces: a switch must not stay silently frozen.
import type pg from "pg";
import { getPool } from "../../db/pool";
import type { Setting } from "../../generated/prisma/client";
import {
  DISABLED_ELIGIBILITY,
  ELIGIBILITY_KEY,
  eligibilityRuleSchema,
  SWITCH_NAMES,
  type EligibilityRule,
} from "../setting-schemas";
import { sql } from "../../db/run-sql";
import { env } from "../../config/env";
import { logger, messageOf } from "../../observability/logger";

const log = logger("settings");

export interface RuntimeSettings {
  maintenance: boolean;
  apiOrderDisabled: boolean;
  /** { enabled: false } when absent (or unreadable: logged). */
  eligibility: EligibilityRule;
}

export interface SettingsReaderOptions {
  cacheMs?: number;
  /** How long a last value may be served while the database fails. */
  maxStaleMs?: number;
  pool?: () => Pick<pg.Pool, "query">;
}

export interface SettingsReader {
  getRuntimeSettings(): Promise<RuntimeSettings>;
  /** Forget the cached value: the next call reads the database (after a local write, or in tests). */
  clear(): void;
}

const KEYS = [...SWITCH_NAMES, ELIGIBILITY_KEY];
const MAX_STALE_MS = 60_000;

/** A switch's row as the reader selects it: Prisma's Setting, key and value (both column names already). */
type SettingRecord = Pick<Setting, "key" | "value">;

function parseSettings(rows: SettingRecord[]): RuntimeSettings {
  const byKey = new Map(rows.map((row) => [row.key, row.value]));
  let eligibility = DISABLED_ELIGIBILITY;
  if (byKey.has(ELIGIBILITY_KEY)) {
    const parsed = eligibilityRuleSchema.safeParse(byKey.get(ELIGIBILITY_KEY));
    if (parsed.success) eligibility = parsed.data;
    // Only a hand edit of the table gets here (setEligibilityRule validates); the rule restricts,
    // so an unreadable one is treated as off rather than refusing every account.
    else log.error(`${ELIGIBILITY_KEY} is not a valid rule, treated as disabled: ${parsed.error.message}`);
  }
  return {
    maintenance: byKey.get("MAINTENANCE") === true,
    apiOrderDisabled: byKey.get("API_ORDER_DISABLED") === true,
    eligibility,
  };
}

export function createSettingsReader(options: SettingsReaderOptions = {}): SettingsReader {
  const cacheMs = options.cacheMs ?? env().settingsCacheMs;
  const maxStaleMs = options.maxStaleMs ?? MAX_STALE_MS;
  const pool = options.pool ?? getPool;
  let cached: { value: RuntimeSettings; readAt: number } | undefined;
  let inFlight: Promise<RuntimeSettings> | undefined;
  /** Set while the database fails: callers get the last value for one cache period between attempts. */
  let failedAt: number | undefined;
  /** Bumped by clear(): a read that started before it must not cache what it saw. */
  let generation = 0;

  async function read(): Promise<RuntimeSettings> {
    const startedIn = generation;
    try {
      const { rows } = await pool().query<SettingRecord>(sql`SELECT key, value FROM settings WHERE key = ANY(${KEYS})`);
      const value = parseSettings(rows);
      if (startedIn === generation) cached = { value, readAt: Date.now() };
      if (failedAt !== undefined) log.info("database readable again");
      failedAt = undefined;
      return value;
    } catch (error) {
      if (!cached || Date.now() - cached.readAt > maxStaleMs) throw error;
      if (failedAt === undefined) log.error(`cannot read settings, serving the last value read: ${messageOf(error)}`);
      // The value is not marked fresh: the database is tried again one cache period later.
      failedAt = Date.now();
      return cached.value;
    }
  }

  return {
    getRuntimeSettings() {
      if (cached) {
        const now = Date.now();
        const fresh = now - cached.readAt < cacheMs;
        const backingOff = failedAt !== undefined && now - failedAt < cacheMs && now - cached.readAt <= maxStaleMs;
        if (fresh || backingOff) return Promise.resolve(cached.value);
      }
      if (!inFlight) {
        const reading: Promise<RuntimeSettings> = read().finally(() => {
          if (inFlight === reading) inFlight = undefined;
        });
        inFlight = reading;
      }
      return inFlight;
    },
    clear() {
      cached = undefined;
      failedAt = undefined;
      inFlight = undefined; // a read already under way may predate the change: start a new one
      generation++;
    },
  };
}

let shared: SettingsReader | undefined;
const sharedReader = () => (shared ??= createSettingsReader());

export function getRuntimeSettings(): Promise<RuntimeSettings> {
  return sharedReader().getRuntimeSettings();
}

/** Makes this instance read the database on its next call (after it changed a setting itself). */
export function clearRuntimeSettingsCache(): void {
  shared?.clear();
}

export { isAccountEligible } from "../is-account-eligible";
