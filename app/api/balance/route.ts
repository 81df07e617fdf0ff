import { publicRoute } from "@/lib/http/public-route";
import { ApiError } from "@/lib/http/errors";
import { readBalanceCents } from "@/lib/wallet/sql/read-balance";
import { centsToUsd } from "@/lib/money/cents-to-usd";
import { BalanceResponse } from "@/lib/api-schemas/read-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "getBalance",
  path: "/balance",
  tag: "Account",
  summary: "Wallet balance in USD",
  description: "The wallet's balance, in USD, as the ledger (GET /ledger) sums it.",
  response: BalanceResponse,
  example: {
    responses: {
      balance: {
        summary: "The demo account's starting balance",
        value: { success: true, balanceUsd: 100, currency: "USD", livemode: true },
      },
    },
  },
  clientSample: (call) => `const { balanceUsd } = await ${call};`,
  errors: [],
  handle: async ({ caller }) => ({
    success: true,
    balanceUsd: centsToUsd(await readBalanceCents(caller.accountId)),
    currency: "USD",
    livemode: caller.livemode,
  }),
});

export const POST = publicRoute({
  method: "POST",
  operationId: "fundBalance",
  path: "/balance",
  tag: "Account",
  summary: "Not available: wallets are funded only through the bot",
  description:
    "Always answers 501 NOT_IMPLEMENTED on this build: wallets are funded in the bot (an admin's /credit). Read the balance with GET /balance.",
  // Its answer is always the error, whose example the document has already.
  example: { responses: null },
  clientSample: () =>
    "// Not available: wallets are funded through the bot, so the client has no method for it.\n" +
    "const { balanceUsd } = await client.getBalance();",
  errors: ["NOT_IMPLEMENTED"],
  handle: async () => {
    throw new ApiError("NOT_IMPLEMENTED");
  },
});

export const { HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
