"use server";
// The signed-in admin's own Telegram link: a one-time code for the bot's /link, or unlinking. Any
// role may: each acts on the caller's own account only, and the bot then grants exactly that role.
// A code needs the second factor proved within 15 minutes: a link outlives the session, so a stolen
// session cookie must not be able to carry the admin's rights into someone else's Telegram. Audited
// (lib/admin-users).
import { revalidatePath } from "next/cache";
import { issueTelegramLinkCode } from "@/lib/admin-users/issue-telegram-link-code";
import { unlinkTelegramAccount } from "@/lib/admin-users/unlink-telegram-account";
import { LINK_CODE_TTL_MINUTES } from "@/lib/admin-users/telegram-link-code";
import { isConfirmed, NOT_CONFIRMED, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

export async function issueTelegramLinkCodeAction(_state: ActionState, _formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("viewer", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  const { code } = await issueTelegramLinkCode({ adminId: gate.admin.id, actor: gate.admin.actor });
  return {
    ok: true,
    message: `Send /link ${code} to the bot from your Telegram account within ${LINK_CODE_TTL_MINUTES} minutes. The code works once; a new code replaces it.`,
    shownOnce: [code],
  };
}

export async function unlinkTelegramAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("viewer");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const result = await unlinkTelegramAccount({ adminId: gate.admin.id, actor: gate.admin.actor });
  revalidatePath("/admin/account");
  if (result.status === "not_linked") return { ok: false, message: "No Telegram account is linked." };
  return { ok: true, message: `Unlinked Telegram user ${result.telegramId}: the bot no longer treats it as an admin.` };
}
