// The webhooks page's parts: its filters, the endpoints with their state, the recent deliveries with
// each attempt and a re-send, and the replay of an account's events.
import Link from "next/link";
import type { WebhookEndpointSummary } from "@/lib/webhooks/list-webhook-endpoints";
import type { WebhookDeliveryView } from "@/lib/webhooks/list-webhook-deliveries";
import { formatTime } from "../../_lib/format";
import { GatedActionForm } from "../../_components/gated-action-form";
import { DataTable } from "../../_components/data-table";
import { redeliverWebhookAction, replayWebhookRangeAction } from "./actions";

export const STATUSES = ["pending", "delivered", "failed"];
const BADGE: Record<string, string> = { pending: "pending", delivered: "completed", failed: "cancelled" };

export function WebhookFilters({
  accountId,
  endpointId,
  status,
}: {
  accountId: number | undefined;
  endpointId: number | undefined;
  status: string | undefined;
}) {
  return (
    <form className="filters" method="get" action="/admin/webhooks" aria-label="Filter webhooks">
      <label>
        Account id
        <input name="account" defaultValue={accountId ?? ""} size={8} />
      </label>
      <label>
        Endpoint id
        <input name="endpoint" defaultValue={endpointId ?? ""} size={8} />
      </label>
      <label>
        Status
        <select name="status" defaultValue={status ?? ""}>
          <option value="">any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Filter</button>
      <Link href="/admin/webhooks">Reset</Link>
    </form>
  );
}

export function EndpointsTable({ endpoints }: { endpoints: WebhookEndpointSummary[] }) {
  return (
    <DataTable
      label="Webhook endpoints"
      columns={[
        { label: "#", num: true },
        "Account",
        "URL",
        "Events",
        "State",
        { label: "Waiting", num: true },
        "Last attempt",
      ]}
      rows={endpoints}
      empty="No endpoints."
    >
      {(e) => <EndpointRow key={e.id} e={e} />}
    </DataTable>
  );
}

function EndpointRow({ e }: { e: WebhookEndpointSummary }) {
  return (
    <tr>
      <td className="num">
        <Link href={`/admin/webhooks?endpoint=${e.id}`}>{e.id}</Link>
      </td>
      <td>
        <Link href={`/admin/accounts/${e.accountId}`}>{e.accountId}</Link>
      </td>
      <td>
        <code>{e.url}</code>
      </td>
      <td>{e.eventTypes.length ? e.eventTypes.join(", ") : "all"}</td>
      <td>
        {e.disabledAt ? (
          <span className="badge bad" title={e.disabledReason ?? ""}>
            disabled {formatTime(e.disabledAt)}: {e.disabledReason}
          </span>
        ) : e.failingSince ? (
          <span className="badge warn">failing since {formatTime(e.failingSince)}</span>
        ) : (
          <span className="badge good">enabled</span>
        )}
      </td>
      <td className="num">{e.pendingDeliveries}</td>
      <td>
        {e.lastAttemptAt ? `${e.lastHttpStatus ?? e.lastError ?? "no answer"} at ${formatTime(e.lastAttemptAt)}` : "—"}
      </td>
    </tr>
  );
}

export function DeliveriesTable({ deliveries }: { deliveries: WebhookDeliveryView[] }) {
  return (
    <DataTable
      label="Webhook deliveries"
      columns={[{ label: "#", num: true }, "Event", "Endpoint", "Status", "Attempts and answers", ""]}
      rows={deliveries}
      empty="No deliveries."
    >
      {(d) => <DeliveryRow key={d.id} d={d} />}
    </DataTable>
  );
}

function DeliveryRow({ d }: { d: WebhookDeliveryView }) {
  return (
    <tr>
      <td className="num">{d.id}</td>
      <td>
        <code>{d.type}</code> #{d.sequence} of account {d.accountId}
        <br />
        <code className="muted">{d.eventId}</code>
      </td>
      <td>
        #{d.endpointId} <code>{d.url}</code>
      </td>
      <td>
        <span className={`badge ${BADGE[d.status]}`}>{d.status}</span>
        {d.status === "pending" && d.nextAttemptAt ? (
          <div className="muted">next {formatTime(d.nextAttemptAt)}</div>
        ) : null}
        {d.failReason ? <div className="muted">{d.failReason}</div> : null}
      </td>
      <td>
        <details>
          <summary>{d.attempts} attempt(s)</summary>
          <ol>
            {d.attemptLog.map((a, i) => (
              <li key={i}>
                {formatTime(a.attemptedAt)}: {a.httpStatus ?? "no answer"} in {a.durationMs} ms
                {a.error ? ` (${a.error})` : ""}
                {a.responseBody ? <pre className="response-body">{a.responseBody}</pre> : null}
              </li>
            ))}
          </ol>
        </details>
      </td>
      <td>
        <GatedActionForm
          role="operator"
          action={redeliverWebhookAction}
          submitLabel="Re-send"
          confirm={`Send event ${d.eventId} to endpoint #${d.endpointId} again, as a new delivery?`}
          label={`Re-send delivery ${d.id}`}
        >
          <input type="hidden" name="deliveryId" value={d.id} />
        </GatedActionForm>
      </td>
    </tr>
  );
}

export function ReplayForm({ accountId }: { accountId: number | undefined }) {
  return (
    <GatedActionForm
      role="operator"
      action={replayWebhookRangeAction}
      submitLabel="Replay"
      confirm="Re-send these events to every enabled endpoint of the account subscribed to them?"
      label="Replay events"
      layout="stacked"
    >
      <label>
        Account id <input name="accountId" defaultValue={accountId ?? ""} size={8} required />
      </label>
      <label>
        After sequence <input name="after" defaultValue="0" size={8} required />
      </label>
      <label>
        Through sequence (optional) <input name="through" size={8} />
      </label>
    </GatedActionForm>
  );
}
