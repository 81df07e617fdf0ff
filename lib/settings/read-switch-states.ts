// What the dashboard shows next to each switch: its state, who set it and when.
import { getPrisma } from "../db/prisma";
import {
  DISABLED_ELIGIBILITY,
  ELIGIBILITY_KEY,
  eligibilityRuleSchema,
  SWITCH_NAMES,
  type EligibilityRule,
  type SwitchName,
} from "./setting-schemas";

export interface SettingState<T> {
  value: T;
  /** null while the setting was never set (the default applies). */
  updatedBy: string | null;
  updatedAt: Date | null;
}

interface Row {
  key: string;
  value: unknown;
  updatedBy: string | null;
  updatedAt: Date;
}

async function readRows(keys: string[]): Promise<Map<string, Row>> {
  const rows = await getPrisma().setting.findMany({ where: { key: { in: keys } } });
  return new Map(rows.map((row) => [row.key, row]));
}

/** Both switches, read from the database (not the request cache): an admin sees the current truth. */
export async function readSwitchStates(): Promise<Record<SwitchName, SettingState<boolean>>> {
  const rows = await readRows([...SWITCH_NAMES]);
  const state = (name: SwitchName): SettingState<boolean> => {
    const row = rows.get(name);
    return { value: row?.value === true, updatedBy: row?.updatedBy ?? null, updatedAt: row?.updatedAt ?? null };
  };
  return { MAINTENANCE: state("MAINTENANCE"), API_ORDER_DISABLED: state("API_ORDER_DISABLED") };
}

/** The API_ELIGIBILITY rule with who set it and when; { enabled: false } when never set. */
export async function readEligibilityRuleState(): Promise<SettingState<EligibilityRule>> {
  const row = (await readRows([ELIGIBILITY_KEY])).get(ELIGIBILITY_KEY);
  const parsed = eligibilityRuleSchema.safeParse(row?.value);
  return {
    value: parsed.success ? parsed.data : DISABLED_ELIGIBILITY,
    updatedBy: row?.updatedBy ?? null,
    updatedAt: row?.updatedAt ?? null,
  };
}
