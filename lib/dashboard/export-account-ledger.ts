// An account's whole wallet statement as CSV for an admin: every entry, newest first, with the
// running balance, who moved the money and why. The actor and reason are free text written by
// admins, the bot and suppliers' answers, so the shared CSV writer neutralises formulas in them.
import { getPrisma } from "../db/prisma";
import { centsToUsd } from "../money/cents-to-usd";
import { csvNumber, toCsv } from "../csv/to-csv";
import { listAccountLedger, type AccountLedgerLine } from "./list-account-ledger";

/** The newest entries up to this many are exported: it is a statement, not a backup. */
const MAX_EXPORTED_LEDGER_ENTRIES = 100_000;

/** The CSV, or undefined when there is no such account. */
export async function exportAccountLedger(accountId: number): Promise<string | undefined> {
  if ((await getPrisma().account.count({ where: { id: accountId } })) === 0) return undefined;
  const entries: AccountLedgerLine[] = [];
  let olderThan: number | undefined;
  do {
    const page = await listAccountLedger(accountId, { olderThan, limit: 200 });
    entries.push(...page.entries);
    olderThan = page.olderCursor;
  } while (olderThan !== undefined && entries.length < MAX_EXPORTED_LEDGER_ENTRIES);
  return toCsv(
    [
      "id",
      "kind",
      "amount_usd",
      "balance_after_usd",
      "order_id",
      "order_cost_usd",
      "order_margin_usd",
      "actor",
      "reason",
      "created_at",
    ],
    entries.slice(0, MAX_EXPORTED_LEDGER_ENTRIES).map((e) => [
      e.id,
      e.kind,
      csvNumber(centsToUsd(e.amountCents), 2),
      csvNumber(centsToUsd(e.balanceAfterCents), 2),
      e.orderPublicId,
      // On a completed order's debit: its cost, and the margin (what was charged less the cost).
      e.orderCostCents === null ? null : csvNumber(centsToUsd(e.orderCostCents), 2),
      e.orderCostCents === null ? null : csvNumber(centsToUsd(-e.amountCents - e.orderCostCents), 2),
      e.actor,
      e.reason,
      e.createdAt,
    ]),
  );
}
