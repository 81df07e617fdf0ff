import { publicRoute } from "@/lib/http/public-route";
import { ORDER_ID, PLACED_AT } from "@/lib/openapi/example-values";
import { ApiError } from "@/lib/http/errors";
import { LedgerQuery, LedgerResponse, LedgerStatementCsv, MAX_STATEMENT_DAYS } from "@/lib/api-schemas/order-schemas";
import { ledgerToCsv, listLedgerEntries } from "@/lib/wallet/sql/list-ledger-entries";
import {
  openLedgerStatement,
  StatementsBusyError,
  type StatementRange,
} from "@/lib/wallet/sql/stream-ledger-statement";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "getLedger",
  path: "/ledger",
  tag: "Account",
  summary: "Your wallet statement, newest first",
  description:
    "Every credit, debit, refund and adjustment with the balance after it, in pages, newest first. `?format=csv` answers the page " +
    "as CSV. `?format=csv&from=...&to=...` streams every entry with `from <= createdAt < to` (oldest first, not paged) between " +
    "an opening and a closing balance line, for reconciling a period in one download: `from` and `to` are ISO-8601 instants " +
    `with an offset or bare dates (00:00 UTC), at most ${MAX_STATEMENT_DAYS} days apart; a month is \`from=2026-10-01&to=2026-11-01\`. ` +
    "The opening balance plus the entries' amounts equals the closing balance. While the service already streams its " +
    "most statements at once, or this key already streams one, a statement answers 503 SERVICE UNAVAILABLE with Retry-After.",
  query: LedgerQuery,
  response: LedgerResponse,
  alternateContent: { "text/csv": LedgerStatementCsv },
  responseHeaders: {
    "Content-Disposition": {
      description: "With format=csv: `attachment` with a file name (`ledger-<from>-to-<to>.csv` for a statement)",
    },
  },
  example: {
    query: { page: "1", pageSize: "50" },
    responses: {
      page: {
        summary: "A credit from the bot and an order's debit, newest first",
        value: {
          success: true,
          page: 1,
          pageSize: 50,
          total: 2,
          hasMore: false,
          entries: [
            {
              id: 2,
              type: "debit",
              amountUsd: -0.99,
              balanceAfterUsd: 99.01,
              orderId: ORDER_ID,
              reason: null,
              createdAt: PLACED_AT,
              livemode: true,
            },
            {
              id: 1,
              type: "credit",
              amountUsd: 100,
              balanceAfterUsd: 100,
              orderId: null,
              reason: "demo funding",
              createdAt: "2026-01-15T09:00:00.000Z",
              livemode: true,
            },
          ],
        },
      },
    },
  },
  clientSample: (call) =>
    `const { entries } = await ${call};\n` +
    "// or every entry, page after page:\n" +
    "for await (const entry of client.iterateLedger()) console.log(entry.type, entry.amountUsd, entry.balanceAfterUsd);",
  errors: ["SERVICE_UNAVAILABLE"],
  handle: async ({ request, caller, query }) => {
    if (query.from && query.to)
      return ledgerStatementResponse(request, caller.accountId, caller.keyId, { from: query.from, to: query.to });
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 50;
    const { total, entries } = await listLedgerEntries(caller.accountId, pageSize, (page - 1) * pageSize);
    if (query.format === "csv") {
      return new Response(ledgerToCsv(entries), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="ledger-page-${page}.csv"`,
        },
      });
    }
    return {
      success: true,
      page,
      pageSize,
      total,
      hasMore: page * pageSize < total,
      entries: entries.map((entry) => ({ ...entry, livemode: caller.livemode })),
    };
  },
});

/** A bound as a file-name part: the date at midnight UTC, else the instant without colons. */
function fileNameBound(at: Date): string {
  const iso = at.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.replace(/:/g, "").replace(".000Z", "Z");
}

async function ledgerStatementResponse(
  request: Request,
  accountId: number,
  keyId: number,
  range: StatementRange,
): Promise<Response> {
  let statement;
  try {
    statement = await openLedgerStatement(accountId, range, keyId);
  } catch (error) {
    if (error instanceof StatementsBusyError)
      throw new ApiError("SERVICE_UNAVAILABLE", { headers: { "retry-after": "5" } });
    throw error;
  }
  const headers = {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="ledger-${fileNameBound(range.from)}-to-${fileNameBound(range.to)}.csv"`,
    "cache-control": "no-store",
  };
  if (request.method === "HEAD") {
    await statement.body.cancel();
    return new Response(null, { headers });
  }
  return new Response(statement.body, { headers });
}

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
