// Changing a runtime setting: the dashboard and the bot's /maintenance and /ordersoff call these.
// One transaction: the upsert and its audit row commit together or not at all.
import type pg from "pg";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { withTransaction } from "../db/pool";
import { clearRuntimeSettingsCache } from "./get-runtime-settings";
import { ELIGIBILITY_KEY, eligibilityRuleSchema, SWITCH_NAMES, type EligibilityRule, type SwitchName } from "./setting-schemas";

export interface SettingChange<T> {
  value: T;
  /** The stored value before, or null when the setting had never been set. */
  previous: T | null;
  updatedBy: string;
  updatedAt: Date;
}

/** Upserts `key` and writes the "setting.set" audit row with { from, to }, in the caller's transaction. */
async function writeSetting<T>(client: pg.PoolClient, key: string, value: T, actor: string): Promise<SettingChange<T>> {
  // Serialises writers of this key, including the first insert (a row lock cannot, before the row
  // exists), so each audit row's `from` is exactly the value it replaced.
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('settings:' || $1))`, [key]);
  const before = await client.query<{ value: T }>(`SELECT value FROM settings WHERE key = $1`, [key]);
  const previous = before.rows[0]?.value ?? null;
  const { rows } = await client.query<{ updated_by: string; updated_at: Date }>(
    `INSERT INTO settings (key, value, updated_by, updated_at) VALUES ($1, $2::jsonb, $3, now())
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
     RETURNING updated_by, updated_at`,
    [key, JSON.stringify(value), actor],
  );
  await recordAuditEntry({ actor, action: "setting.set", targetType: "setting", targetId: key, details: { from: previous, to: value } }, client);
  return { value, previous, updatedBy: rows[0].updated_by, updatedAt: rows[0].updated_at };
}

/** Turns MAINTENANCE or API_ORDER_DISABLED on or off. `actor`: "admin:<email>", "telegram:<id>", "system". */
export async function setSwitch(name: SwitchName, on: boolean, actor: string): Promise<SettingChange<boolean>> {
  if (!SWITCH_NAMES.includes(name)) throw new Error(`unknown switch ${String(name)}`);
  if (typeof on !== "boolean") throw new Error(`switch ${name} takes true or false`);
  const change = await withTransaction((client) => writeSetting(client, name, on, actor));
  clearRuntimeSettingsCache(); // this instance obeys at once; the others within their cache period
  return change;
}

/** Replaces API_ELIGIBILITY; throws the ZodError of an invalid rule before touching the database. */
export async function setEligibilityRule(rule: EligibilityRule, actor: string): Promise<SettingChange<EligibilityRule>> {
  const valid = eligibilityRuleSchema.parse(rule);
  const change = await withTransaction((client) => writeSetting(client, ELIGIBILITY_KEY, valid, actor));
  clearRuntimeSettingsCache();
  return change;
}

export type { EligibilityRule, SwitchName } from "./setting-schemas";
