// Accounts, keys and money for tests, created through the same lib/ functions the bot uses.
import { getPrisma } from "@/lib/db/prisma";
import { createApiKey } from "@/lib/auth/create-api-key";
import { creditWallet } from "@/lib/wallet/credit-wallet";

let telegramIds = 900_000_000;

export async function createAccount(
  options: { balanceCents?: number; apiEnabled?: boolean; username?: string; key?: boolean } = {},
) {
  const telegramId = BigInt(++telegramIds);
  const account = await getPrisma().account.create({
    data: {
      telegramId,
      telegramUsername: options.username ?? `user${telegramIds}`,
      apiEnabled: options.apiEnabled ?? true,
    },
  });
  if (options.balanceCents) {
    await creditWallet({ accountId: account.id, amountCents: options.balanceCents, actor: "test", reason: "test funding" });
  }
  const key = options.key === false ? undefined : await createApiKey(account.id);
  return { accountId: account.id, telegramId, key: key?.key ?? "", keyId: key?.id ?? 0, keyPrefix: key?.prefix ?? "" };
}
