import { getPrisma } from "../db/prisma";
import { writeSetting, type SettingChange } from "./set-switch";
import { LARGE_CREDIT_KEY, largeCreditThresholdSchema } from "./setting-schemas";

/**
 * Sets the amount above which a credit needs a second admin; throws the ZodError of an invalid amount,
 * and StaleEditError when `version` (the dashboard form's) is not the setting's version any more. Audited.
 */
export async function setLargeCreditThreshold(
  cents: number,
  actor: string,
  version?: string,
): Promise<SettingChange<number>> {
  const valid = largeCreditThresholdSchema.parse(cents);
  return getPrisma().$transaction((tx) => writeSetting(tx, LARGE_CREDIT_KEY, valid, actor, version));
}
