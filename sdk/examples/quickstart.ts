// The quickstart with the TypeScript client (README: Quickstart): from the demo key
// to a completed order and a read of the ledger.
//
//   TOPUP_API_URL=http://localhost:3000 TOPUP_API_KEY=<the demo key npm start printed> npx tsx sdk/examples/quickstart.ts
//
// In your own project, install the package (sdk/) and import from "@topup-api/client" as here.
import { createClient, TopupApiError } from "@topup-api/client";

const apiKey = process.env.TOPUP_API_KEY;
if (!apiKey) {
  console.error("Set TOPUP_API_KEY to your key (npm start prints the demo key; it is also in .data/demo-api-key).");
  process.exit(2);
}
const client = createClient({ baseUrl: process.env.TOPUP_API_URL ?? "http://localhost:3000", apiKey });

try {
  // 1. Your wallet and the catalog.
  const balance = await client.getBalance();
  console.log(`balance: ${balance.balanceUsd.toFixed(2)} ${balance.currency}`);
  const { products } = await client.listProducts();
  const pack = products.find((p) => p.id === "SVCBR60") ?? products.find((p) => p.orderable && p.kind === "topup");
  if (!pack) throw new Error("no orderable top-up pack in the catalog");
  console.log(`pack: ${pack.id} (${pack.gameName}, ${pack.packName}) ${pack.price.toFixed(2)} ${pack.currency}`);

  // 2. Order it. The trxid is your own id for this purchase and the idempotency key: sending the
  //    same order again (after a crash, a timeout) answers the same invoice and never buys twice.
  //    The client's own retries resend it unchanged for the same reason.
  const trxid = process.env.TRXID ?? `quickstart-${Date.now()}`;
  const { invoice } = await client.placeOrder({ pid: pack.id, trxid, userId: "12345678" });
  console.log(`placed: ${invoice.orderId} ${invoice.status} (trxid ${invoice.trxid})`);

  // 3. Wait for the outcome: the server holds each request until the order finishes.
  const done = await client.waitForOrder(invoice.orderId, { timeoutMs: 60_000 });
  console.log(
    `finished: ${done.orderId} ${done.status}${done.error ? ` (${done.error})` : ""} in ${done.durationSec ?? "?"} s`,
  );

  // 4. The wallet statement, newest first: the order's debit and the balance after it.
  console.log("ledger (newest first):");
  let shown = 0;
  for await (const entry of client.iterateLedger({ pageSize: 50 })) {
    console.log(
      `  ${entry.type} ${entry.amountUsd.toFixed(2)} -> ${entry.balanceAfterUsd.toFixed(2)}${entry.orderId ? ` ${entry.orderId}` : ""}`,
    );
    if (++shown === 5) break;
  }
} catch (error) {
  if (!(error instanceof TopupApiError)) throw error;
  // Every failure has a code from the error reference (docs/errors.md) or the client's own.
  switch (error.code) {
    case "INSUFFICIENT_BALANCE":
      console.error("The wallet cannot cover this pack: fund it in the bot. Nothing was charged.");
      break;
    case "INVALID_API_KEY":
    case "INVALID_API_KEY_FORMAT":
    case "MISSING_API_KEY":
      console.error(`Check TOPUP_API_KEY: ${error.message}`);
      break;
    default:
      console.error(
        `${error.code} (HTTP ${error.status}, ${error.retryable ? "retry can succeed" : "do not retry unchanged"}): ${error.message}`,
      );
  }
  process.exit(1);
}
