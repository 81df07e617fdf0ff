// Telegram admins for tests: a dashboard admin user of a role, linked to a Telegram account through
// the same lib functions the account page's link code and the bot's /link use, with two-factor on
// (every admin command needs it, as the dashboard does) unless a test says otherwise.
import crypto from "node:crypto";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { issueTelegramLinkCode } from "@/lib/admin-users/issue-telegram-link-code";
import { linkTelegramAccount } from "@/lib/admin-users/link-telegram-account";
import { adminActor } from "@/lib/admin-users/admin-user-record";
import type { AdminRole } from "@/lib/admin-users/admin-role";
import { enableTwoFactor } from "./two-factor";

export interface LinkedAdmin {
  adminId: number;
  email: string;
  password: string;
  telegramId: number;
}

/** Creates an admin user of `role` and links Telegram user `telegramId` to it. */
export async function createLinkedAdmin(
  telegramId: number | { id: number },
  role: AdminRole,
  options: { twoFactor?: boolean; email?: string } = {},
): Promise<LinkedAdmin> {
  const id = typeof telegramId === "number" ? telegramId : telegramId.id;
  const email = options.email ?? `${role}-${id}@example.test`;
  const password = crypto.randomBytes(12).toString("base64url");
  const created = await createAdminUser({ email, password, role, actor: "test" });
  if (created.status !== "created") throw new Error(`admin ${email}: ${created.status}`);
  if (options.twoFactor ?? true) await enableTwoFactor(email);
  const { code } = await issueTelegramLinkCode({ adminId: created.admin.id, actor: adminActor(email) });
  const linked = await linkTelegramAccount({ code, telegramId: id, actor: `telegram:${id}` });
  if (linked.status !== "linked") throw new Error(`linking telegram:${id} to ${email}: ${linked.status}`);
  return { adminId: created.admin.id, email, password, telegramId: id };
}
