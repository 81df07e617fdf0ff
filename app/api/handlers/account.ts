import { publicRoute } from "@/lib/http/public-route";
import { ApiError } from "@/lib/http/errors";
import { readBalanceCents } from "@/lib/wallet/sql/read-balance";
import { centsToUsd } from "@/lib/money/cents-to-usd";
import { BalanceResponse, MyIpResponse } from "@/lib/api-schemas/read-schemas";

export const getBalance = publicRoute({
  method: "GET",
  path: "/balance",
  tag: "Account",
  summary: "Wallet balance in USD",
  response: BalanceResponse,
  errors: [],
  handle: async ({ caller }) => ({
    success: true,
    balanceUsd: centsToUsd(await readBalanceCents(caller.accountId)),
    currency: "USD",
  }),
});

export const postBalance = publicRoute({
  method: "POST",
  path: "/balance",
  tag: "Account",
  summary: "Not available: wallets are funded only through the bot",
  response: BalanceResponse,
  errors: ["NOT_IMPLEMENTED"],
  handle: async () => {
    throw new ApiError("NOT_IMPLEMENTED");
  },
});

export const getMyIp = publicRoute({
  method: "GET",
  path: "/my-ip",
  tag: "Account",
  summary: "Your public IP as the service sees it (the address IP allowlists are checked against)",
  description:
    "Answers even where the key's IP allowlist would refuse the caller (IP_NOT_ALLOWED, IP_ALLOWLIST_REQUIRED), so a client " +
    "can learn which address to add. The key, the account state and the rate limit still apply.",
  ipAllowlist: false,
  response: MyIpResponse,
  errors: [],
  handle: async ({ clientIp }) => ({ success: true, ip: clientIp }),
});
