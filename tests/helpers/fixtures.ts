// Accounts, keys and money for tests, created through the same lib/ functions the bot uses.
import { getPrisma } from "@/lib/db/prisma";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { creditWallet } from "@/lib/wallet/credit-wallet";

let telegramIds = 900_000_000;

/** A key for the account through the bot's own /newkey function (the same limit, the same audit row). */
export async function issueTestKey(accountId: number, options: { name?: string } = {}) {
  const issued = await issueApiKey(accountId, "test", options);
  if (issued.status !== "created") throw new Error(`could not issue a key for account ${accountId}: ${issued.status}`);
  return issued;
}

export async function createAccount(
  options: { balanceCents?: number; apiEnabled?: boolean; username?: string; key?: boolean } = {},
) {
  const telegramId = ++telegramIds;
  const account = await getPrisma().account.create({
    data: {
      telegramId: BigInt(telegramId),
      telegramUsername: options.username ?? `user${telegramId}`,
      apiEnabled: options.apiEnabled ?? true,
    },
    select: { id: true },
  });
  if (options.balanceCents) {
    await creditWallet({
      accountId: account.id,
      amountCents: options.balanceCents,
      actor: "test",
      reason: "test funding",
    });
  }
  const key = options.key === false ? undefined : await issueTestKey(account.id);
  return { accountId: account.id, telegramId, key: key?.key ?? "", keyId: key?.id ?? 0, keyPrefix: key?.prefix ?? "" };
}
