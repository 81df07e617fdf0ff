// What /deposit answers: the payment methods an owner sets on the dashboard's Deposits page (a bank
// transfer's details, a crypto address ...) and how long a request stays open. Stored as runtime
// settings (the settings table), audited like every setting.
import { z } from "zod";
import { getPrisma, type PrismaDb } from "../db/prisma";
import { writeSetting } from "../settings/set-switch";
import { lockSetting } from "../settings/sql/lock-setting";
import { expectedVersion, isCurrentVersion, StaleEditError } from "../db/edit-version";

const DEPOSIT_METHODS_KEY = "DEPOSIT_METHODS";
const DEPOSIT_VALIDITY_KEY = "DEPOSIT_VALIDITY_MINUTES";
/** Until an owner sets it: a request stays open two hours. */
const DEFAULT_DEPOSIT_VALIDITY_MINUTES = 120;

const depositMethodSchema = z.strictObject({
  name: z.string().trim().min(1).max(60),
  instructions: z.string().trim().min(1).max(1_000),
});
export type DepositMethod = z.infer<typeof depositMethodSchema>;
const depositMethodsSchema = z.array(depositMethodSchema).max(10);
/** Ten minutes to a week. */
const depositValiditySchema = z
  .number()
  .int()
  .min(10)
  .max(7 * 24 * 60);

export interface DepositSettings {
  /** Empty: deposits are not set up, and /deposit says so. */
  methods: DepositMethod[];
  validityMinutes: number;
  updatedBy: string | null;
  updatedAt: Date | null;
}

/** `db`: the caller's transaction, so a request is opened with the validity it commits with. */
export async function readDepositSettings(db: PrismaDb = getPrisma()): Promise<DepositSettings> {
  const rows = await db.setting.findMany({ where: { key: { in: [DEPOSIT_METHODS_KEY, DEPOSIT_VALIDITY_KEY] } } });
  const methodsRow = rows.find((row) => row.key === DEPOSIT_METHODS_KEY);
  const validityRow = rows.find((row) => row.key === DEPOSIT_VALIDITY_KEY);
  const methods = depositMethodsSchema.safeParse(methodsRow?.value);
  const validity = depositValiditySchema.safeParse(validityRow?.value);
  const latest = [methodsRow, validityRow]
    .filter((row) => row !== undefined)
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
  return {
    methods: methods.success ? methods.data : [],
    validityMinutes: validity.success ? validity.data : DEFAULT_DEPOSIT_VALIDITY_MINUTES,
    updatedBy: latest?.updatedBy ?? null,
    updatedAt: latest?.updatedAt ?? null,
  };
}

/**
 * Saves both; throws the ZodError of an invalid value, and StaleEditError when `version` (the
 * dashboard form's: that of the newer of the two, readDepositSettings' updatedAt) is not current, so
 * a stale tab cannot bring back bank details another owner replaced. Audited as two setting changes.
 */
export async function setDepositSettings(
  input: { methods: DepositMethod[]; validityMinutes: number },
  actor: string,
  version?: string,
): Promise<void> {
  const methods = depositMethodsSchema.parse(input.methods);
  const validity = depositValiditySchema.parse(input.validityMinutes);
  await getPrisma().$transaction(async (tx) => {
    await lockSetting(tx, DEPOSIT_METHODS_KEY);
    await lockSetting(tx, DEPOSIT_VALIDITY_KEY);
    const current = (await readDepositSettings(tx)).updatedAt ?? undefined;
    if (!isCurrentVersion(current, expectedVersion(version))) throw new StaleEditError("The payment methods");
    await writeSetting(tx, DEPOSIT_METHODS_KEY, methods, actor);
    await writeSetting(tx, DEPOSIT_VALIDITY_KEY, validity, actor);
  });
}
