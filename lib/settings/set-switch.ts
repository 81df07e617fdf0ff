// Changing a runtime setting: the dashboard and the bot's /maintenance and /ordersoff call these.
// One transaction: the upsert and its audit row commit together or not at all.
import type { Prisma } from "../generated/prisma/client";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { getPrisma, type PrismaTx } from "../db/prisma";
import { clearRuntimeSettingsCache } from "./sql/get-runtime-settings";
import { lockSetting } from "./sql/lock-setting";
import { expectedVersion, isCurrentVersion, nextVersion, StaleEditError } from "../db/edit-version";
import {
  ELIGIBILITY_KEY,
  eligibilityRuleSchema,
  SWITCH_NAMES,
  type EligibilityRule,
  type SwitchName,
} from "./setting-schemas";

export interface SettingChange<T> {
  value: T;
  /** The stored value before, or null when the setting had never been set. */
  previous: T | null;
  updatedBy: string;
  updatedAt: Date;
}

/**
 * Upserts `key` and writes the "setting.set" audit row with { from, to }, in the caller's transaction.
 * With the version a form was opened on (lib/db/edit-version.ts), a setting saved since is not
 * overwritten: StaleEditError.
 */
export async function writeSetting<T extends boolean | number | EligibilityRule | readonly object[]>(
  tx: PrismaTx,
  key: string,
  value: T,
  actor: string,
  version?: string,
): Promise<SettingChange<T>> {
  // So each audit row's `from` is exactly the value it replaced, and the version compared stays put.
  await lockSetting(tx, key);
  const before = await tx.setting.findUnique({ where: { key }, select: { value: true, updatedAt: true } });
  if (!isCurrentVersion(before?.updatedAt, expectedVersion(version))) throw new StaleEditError(`Setting ${key}`);
  const previous = (before?.value ?? null) as T | null;
  const json = value as Prisma.InputJsonValue;
  const updatedAt = nextVersion(before?.updatedAt);
  const row = await tx.setting.upsert({
    where: { key },
    create: { key, value: json, updatedBy: actor, updatedAt },
    update: { value: json, updatedBy: actor, updatedAt },
    select: { updatedBy: true, updatedAt: true },
  });
  await recordAuditEntry(
    { actor, action: "setting.set", targetType: "setting", targetId: key, details: { from: previous, to: value } },
    tx,
  );
  return { value, previous, updatedBy: row.updatedBy ?? actor, updatedAt: row.updatedAt };
}

/** Turns MAINTENANCE or API_ORDER_DISABLED on or off. `actor`: "admin:<email>", "telegram:<id>", "system". */
export async function setSwitch(name: SwitchName, on: boolean, actor: string): Promise<SettingChange<boolean>> {
  if (!SWITCH_NAMES.includes(name)) throw new Error(`unknown switch ${String(name)}`);
  if (typeof on !== "boolean") throw new Error(`switch ${name} takes true or false`);
  const change = await getPrisma().$transaction((tx) => writeSetting(tx, name, on, actor));
  clearRuntimeSettingsCache(); // this instance obeys at once; the others within their cache period
  return change;
}

/**
 * Replaces API_ELIGIBILITY; throws the ZodError of an invalid rule before touching the database, and
 * StaleEditError when `version` (the dashboard form's) is not the rule's version any more.
 */
export async function setEligibilityRule(
  rule: EligibilityRule,
  actor: string,
  version?: string,
): Promise<SettingChange<EligibilityRule>> {
  const valid = eligibilityRuleSchema.parse(rule);
  const change = await getPrisma().$transaction((tx) => writeSetting(tx, ELIGIBILITY_KEY, valid, actor, version));
  clearRuntimeSettingsCache();
  return change;
}

export type { EligibilityRule, SwitchName } from "./setting-schemas";
