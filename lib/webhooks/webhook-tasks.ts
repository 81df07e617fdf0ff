// The worker's webhook task in graphile-worker (lib/fulfilment/sql/run-job-generations.ts registers it
// with the fulfilment task). Deliveries themselves are claimed from the outbox by dispatch-webhooks.ts.
import type { TaskList } from "graphile-worker";
import { NOTIFY_ENDPOINT_DISABLED_TASK } from "./event-types";
import { notifyEndpointDisabled } from "./notify-endpoint-disabled";

export const webhookTasks: TaskList = {
  [NOTIFY_ENDPOINT_DISABLED_TASK]: async (payload) => {
    await notifyEndpointDisabled((payload as { endpointId: number }).endpointId);
  },
};
