// Stand-in for lib/webhooks/webhook-tasks.ts in the bench's webhook rounds with deferred delivery:
// the worker's webhook runner knows no webhook task, so delivery jobs wait in the queue while the
// worker fulfils, and the fulfilment figures show what the outbox write in the settling transaction
// costs by itself. A normal worker delivers them afterwards. (A runner needs at least one task.)
import type { TaskList } from "graphile-worker";
import * as real from "../../lib/webhooks/webhook-tasks";

if (!("webhookTasks" in real)) console.warn("[no-auth] lib/webhooks/webhook-tasks.ts no longer exports webhookTasks: update bench/no-auth");

export const webhookTasks: TaskList = {
  bench_deliveries_deferred: async () => undefined,
};
