// Admin commands name an account by id ("42") or @username; this turns the argument into an
// account or replies why it could not.
import { findAccount } from "@/lib/accounts/find-account";
import type { AccountRecord } from "@/lib/accounts/account-record";
import type { BotContext } from "./context";
import { escapeHtml, replyHtml } from "./format";

export async function resolveAccountArg(ctx: BotContext, reference: string): Promise<AccountRecord | undefined> {
  const lookup = await findAccount(reference);
  switch (lookup.status) {
    case "found":
      return lookup.account;
    case "not_found":
      await replyHtml(
        ctx,
        `No account <code>${escapeHtml(reference)}</code>. Name it by account id (42) or @username.`,
      );
      return undefined;
    case "ambiguous":
      await replyHtml(
        ctx,
        `More than one account has been <code>${escapeHtml(reference)}</code>: ${lookup.accountIds.map((id) => `#${id}`).join(", ")}. Use the account id.`,
      );
      return undefined;
    case "invalid":
      await replyHtml(
        ctx,
        `<code>${escapeHtml(reference)}</code> is not an account reference. Use an account id (42) or @username.`,
      );
      return undefined;
  }
}

/** "#12 @bob (Bob Smith)", escaped for HTML. */
export function describeAccountName(account: Pick<AccountRecord, "id" | "telegramUsername" | "displayName">): string {
  const parts = [`#${account.id}`];
  if (account.telegramUsername) parts.push(`@${escapeHtml(account.telegramUsername)}`);
  if (account.displayName) parts.push(`(${escapeHtml(account.displayName)})`);
  return parts.join(" ");
}
