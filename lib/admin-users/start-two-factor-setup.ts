import { getPrisma } from "../db/prisma";
import { newTotpSecret, sealTotpSecret } from "./admin-totp";

export type StartTwoFactorSetupResult = { status: "started" } | { status: "already_on" } | { status: "not_found" };

/**
 * Gives the admin a new secret to add to their authenticator app. It is kept apart (pending) and
 * changes nothing about sign-in until confirmTwoFactorSetup sees a valid code from it; starting again
 * replaces it.
 */
export async function startTwoFactorSetup(adminId: number): Promise<StartTwoFactorSetupResult> {
  const { count } = await getPrisma().adminUser.updateMany({
    where: { id: adminId, totpSecret: null },
    data: { totpPendingSecret: sealTotpSecret(newTotpSecret()) },
  });
  if (count === 1) return { status: "started" };
  const exists = await getPrisma().adminUser.findUnique({ where: { id: adminId }, select: { id: true } });
  return { status: exists ? "already_on" : "not_found" };
}
