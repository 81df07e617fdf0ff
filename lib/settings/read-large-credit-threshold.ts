// The amount above which a credit needs a second admin (LARGE_CREDIT_APPROVAL_CENTS), read from the
// database each time: the bot's /credit decides with it, the settings page shows it.
import { getPrisma, type PrismaDb } from "../db/prisma";
import { DEFAULT_LARGE_CREDIT_CENTS, LARGE_CREDIT_KEY, largeCreditThresholdSchema } from "./setting-schemas";
import type { SettingState } from "./read-switch-states";

/** `db`: the caller's transaction, so a request is decided on the value it commits with. */
export async function readLargeCreditThreshold(db: PrismaDb = getPrisma()): Promise<SettingState<number>> {
  const row = await db.setting.findUnique({ where: { key: LARGE_CREDIT_KEY } });
  const parsed = largeCreditThresholdSchema.safeParse(row?.value);
  return {
    // Only a hand edit of the table stores something else: the default then applies, never "no limit".
    value: parsed.success ? parsed.data : DEFAULT_LARGE_CREDIT_CENTS,
    updatedBy: row?.updatedBy ?? null,
    updatedAt: row?.updatedAt ?? null,
  };
}
