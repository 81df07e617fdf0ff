// Webhooks, read-only apart from re-sending: every endpoint (or one account's), the recent
// deliveries with each attempt and what the receiver answered.
import { listWebhookEndpoints } from "@/lib/webhooks/list-webhook-endpoints";
import { listWebhookDeliveries } from "@/lib/webhooks/list-webhook-deliveries";
import { requireAdminPage } from "../../_lib/session";
import { cursorParam, single, type PageSearchParams } from "../../_lib/search-params";
import { DeliveriesTable, EndpointsTable, ReplayForm, STATUSES, WebhookFilters } from "./webhook-panels";

export const metadata = { title: "Webhooks · Top-up operations" };

export default async function WebhooksPage({ searchParams }: { searchParams: PageSearchParams }) {
  await requireAdminPage();
  const params = await searchParams;
  const accountId = cursorParam(params, "account");
  const endpointId = cursorParam(params, "endpoint");
  const status = STATUSES.includes(single(params, "status")) ? single(params, "status") : undefined;
  const [endpoints, deliveries] = await Promise.all([
    listWebhookEndpoints(accountId ?? "all"),
    listWebhookDeliveries({ accountId, endpointId, status, limit: 50 }),
  ]);
  return (
    <>
      <h1>Webhooks</h1>
      <WebhookFilters accountId={accountId} endpointId={endpointId} status={status} />

      <h2>Endpoints</h2>
      <EndpointsTable endpoints={endpoints} />

      <h2>Recent deliveries</h2>
      <DeliveriesTable deliveries={deliveries} />

      <h2>Replay an account&apos;s events</h2>
      <ReplayForm accountId={accountId} />
    </>
  );
}
