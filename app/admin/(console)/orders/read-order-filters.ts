// The orders page's filters from its query string, shared by the page and its CSV export so that
// the export holds exactly the orders the page lists.
import { findAccount } from "@/lib/accounts/find-account";
import { ORDER_STATUS_FILTERS, type OrderFilters, type OrderStatusFilter } from "@/lib/dashboard/list-orders";
import { single } from "../../_lib/search-params";

const DAY_MS = 86_400_000;

function parseDay(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export interface ReadOrderFilters {
  filters: OrderFilters;
  /** What the admin typed that could not be used, in words. */
  problems: string[];
  /** The filters as typed, for links that keep them. */
  kept: { status: string; line: string; account: string; from: string; to: string; mode: "test" | undefined };
}

export async function readOrderFilters(
  params: Record<string, string | string[] | undefined>,
): Promise<ReadOrderFilters> {
  const status = single(params, "status");
  const line = single(params, "line");
  const accountText = single(params, "account");
  const from = single(params, "from");
  const to = single(params, "to");
  const mode = single(params, "mode") === "test" ? "test" : undefined;
  const problems: string[] = [];
  const filters: OrderFilters = { mode };
  if (status) {
    if ((ORDER_STATUS_FILTERS as string[]).includes(status)) filters.status = status as OrderStatusFilter;
    else problems.push(`Unknown status “${status}”.`);
  }
  if (line) filters.lineSlug = line;
  if (accountText) {
    const found = await findAccount(accountText);
    if (found.status === "found") filters.accountId = found.account.id;
    else {
      problems.push(
        found.status === "ambiguous"
          ? `Several accounts are called ${accountText} (#${found.accountIds.join(", #")}): use the id.`
          : `No account ${accountText} (use an id like 42 or @username).`,
      );
      filters.accountId = -1; // show nothing rather than every account's orders
    }
  }
  if (from) {
    const day = parseDay(from);
    if (day) filters.createdFrom = day;
    else problems.push(`“${from}” is not a date (YYYY-MM-DD).`);
  }
  if (to) {
    const day = parseDay(to);
    if (day) filters.createdBefore = new Date(day.getTime() + DAY_MS);
    else problems.push(`“${to}” is not a date (YYYY-MM-DD).`);
  }
  return { filters, problems, kept: { status, line, account: accountText, from, to, mode } };
}
