// The audit log: every admin action from the dashboard, the bot and scripts, newest first.
import Link from "next/link";
import { listAuditEntries, type AuditFilters } from "@/lib/dashboard/list-audit-entries";
import { requireAdminPage } from "../../_lib/session";
import { cursorParam, queryString, single, type PageSearchParams } from "../../_lib/search-params";
import { formatTime } from "../../_lib/format";
import { DataTable } from "../../_components/data-table";

export const metadata = { title: "Audit log · Top-up operations" };

const QUICK_FILTERS = [
  "order.",
  "account.",
  "api_key.",
  "wallet.",
  "setting.",
  "product.",
  "line.",
  "inventory.",
  "admin_user.",
];

/** Where an entry's target lives in the dashboard, when it has a page. */
function targetHref(type: string | null, id: string | null): string | undefined {
  if (!id) return undefined;
  if (type === "order") return `/admin/orders/${id}`;
  if (type === "account") return `/admin/accounts/${id}`;
  if (type === "setting") return "/admin/settings";
  if (type === "product" || type === "game_line") return "/admin/catalog";
  if (type === "admin_user") return "/admin/admins";
  return undefined;
}

export default async function AuditPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  const params = await searchParams;
  const filters: AuditFilters = {
    actor: single(params, "actor") || undefined,
    action: single(params, "action") || undefined,
    targetType: single(params, "targetType") || undefined,
    targetId: single(params, "targetId") || undefined,
  };
  const olderThan = cursorParam(params, "older");
  const page = await listAuditEntries(filters, { olderThan });
  const kept = {
    actor: filters.actor,
    action: filters.action,
    targetType: filters.targetType,
    targetId: filters.targetId,
  };
  return (
    <>
      <h1>Audit log</h1>
      <form className="filters" method="get" action="/admin/audit" aria-label="Filter the audit log">
        <label>
          Actor contains
          <input name="actor" defaultValue={filters.actor} placeholder="admin:ops@ or telegram:123" />
        </label>
        <label>
          Action
          <input name="action" defaultValue={filters.action} placeholder="account.ban or account." />
        </label>
        <label>
          Target type
          <input name="targetType" defaultValue={filters.targetType} placeholder="order, account…" size={10} />
        </label>
        <label>
          Target id
          <input name="targetId" defaultValue={filters.targetId} size={8} />
        </label>
        <button type="submit">Filter</button>
        <Link href="/admin/audit">Reset</Link>
      </form>
      <p className="muted small">
        Quick filters:{" "}
        {QUICK_FILTERS.map((action) => (
          <span key={action}>
            <Link href={`/admin/audit${queryString({ action })}`}>{action}</Link>{" "}
          </span>
        ))}
      </p>
      <DataTable
        label="Audit entries"
        columns={[{ label: "#", num: true }, "When", "Actor", "Action", "Target", "Details"]}
        rows={page.entries}
        empty="No entries."
      >
        {(entry) => {
          const href = targetHref(entry.targetType, entry.targetId);
          const target = entry.targetType ? `${entry.targetType} ${entry.targetId ?? ""}` : "—";
          return (
            <tr key={entry.id} data-action={entry.action} data-actor={entry.actor}>
              <td className="num">{entry.id}</td>
              <td>{formatTime(entry.createdAt)}</td>
              <td className="mono">{entry.actor}</td>
              <td>{entry.action}</td>
              <td>{href ? <Link href={href}>{target}</Link> : target}</td>
              <td className="mono wrap details">{entry.details === null ? "" : JSON.stringify(entry.details)}</td>
            </tr>
          );
        }}
      </DataTable>
      <nav className="pager" aria-label="Pages">
        {olderThan !== undefined ? <Link href={`/admin/audit${queryString(kept)}`}>← Newest</Link> : null}
        {page.olderCursor !== undefined ? (
          <Link href={`/admin/audit${queryString({ ...kept, older: page.olderCursor })}`}>Older →</Link>
        ) : null}
      </nav>
    </>
  );
}
