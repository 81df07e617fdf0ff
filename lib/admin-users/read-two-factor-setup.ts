import { getPrisma } from "../db/prisma";
import { openTotpSecret, totpUri } from "./admin-totp";

/** The secret being set up, as text and as the otpauth:// URI to show as a QR code; undefined when none. */
export async function readTwoFactorSetup(adminId: number): Promise<{ secret: string; uri: string } | undefined> {
  const admin = await getPrisma().adminUser.findUnique({
    where: { id: adminId },
    select: { email: true, totpPendingSecret: true, totpSecret: true },
  });
  if (!admin?.totpPendingSecret || admin.totpSecret) return undefined;
  const secret = openTotpSecret(admin.totpPendingSecret);
  return { secret, uri: totpUri(secret, admin.email) };
}
