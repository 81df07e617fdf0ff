// The worker's webhook tasks (lib/fulfilment/run-worker.ts registers them with the fulfilment task).
import type { TaskList } from "graphile-worker";
import { DELIVER_WEBHOOK_TASK, NOTIFY_ENDPOINT_DISABLED_TASK } from "./event-types";
import { deliverWebhook } from "./deliver-webhook";
import { notifyEndpointDisabled } from "./notify-endpoint-disabled";

export const webhookTasks: TaskList = {
  [DELIVER_WEBHOOK_TASK]: async (payload) => {
    const { deliveryId, attempt } = payload as { deliveryId: number; attempt?: number };
    await deliverWebhook(deliveryId, { attempt: attempt ?? 1 });
  },
  [NOTIFY_ENDPOINT_DISABLED_TASK]: async (payload) => {
    await notifyEndpointDisabled((payload as { endpointId: number }).endpointId);
  },
};
