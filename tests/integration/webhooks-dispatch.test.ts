// The webhook dispatcher claims due deliveries straight from the outbox: each claim is exclusive
// (two dispatchers never hold one delivery), only due and unclaimed rows are taken, a dead
// dispatcher's claims are released, and a settling transaction in the same process wakes it without
// waiting for a poll.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool, withTransaction } from "@/lib/db/pool";
import {
  claimDueDeliveries,
  groupDeliveredRecords,
  releaseDeadClaims,
  startWebhookDispatcher,
  listClaimingDispatchers,
} from "@/lib/webhooks/sql/dispatch-webhooks";
import { recordWebhookEvent } from "@/lib/webhooks/sql/record-webhook-event";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint, DEV_POLICY, recordEvent, deliveredCount } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";

let receiver: WebhookReceiver;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver?.close();
});

async function pendingEvents(count: number) {
  const account = await createAccount();
  const endpoint = await addEndpoint(account.accountId, receiver.url);
  const events = [];
  for (let i = 0; i < count; i++)
    events.push(await recordEvent(account.accountId, "endpoint.test", { i }, endpoint.endpointId));
  return { account, endpoint, events };
}

/** No caps: the tests of splitting and grouping claim many deliveries of one endpoint at once. */
const UNCAPPED = { perEndpoint: 1000, perAccount: 1000 };

async function clearQueue() {
  await sql(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claimed_by = NULL, claimed_until = NULL WHERE status = 'pending'`,
  );
}

describe("claiming due deliveries", () => {
  it("two dispatchers claiming at once split the due deliveries: none is claimed twice, none is left", async () => {
    await clearQueue();
    const { events } = await pendingEvents(40);
    const batches = await Promise.all(
      Array.from({ length: 8 }, (_, i) => claimDueDeliveries(getPool(), `dispatcher-${i % 2}`, 7, undefined, UNCAPPED)),
    );
    const claimed = batches.flat().map((row) => row.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    const rest = [...(await claimDueDeliveries(getPool(), "dispatcher-2", 100, undefined, UNCAPPED))].map(
      (row) => row.id,
    );
    expect(new Set([...claimed, ...rest]).size).toBe(events.length);
    expect(await claimDueDeliveries(getPool(), "dispatcher-3", 100, undefined, UNCAPPED)).toEqual([]);
    // Each claimed row carries its event and endpoint.
    expect(batches.flat()[0]).toMatchObject({
      status: "pending",
      attempts: 0,
      eventType: "endpoint.test",
      url: receiver.url,
    });
  });

  it("takes only what is due: not a retry scheduled later, not a delivered one, not a live claim; an expired claim is free again", async () => {
    await clearQueue();
    const { events } = await pendingEvents(4);
    const ids = (await sql(`SELECT id FROM webhook_deliveries WHERE status = 'pending' ORDER BY id`)).map((r) =>
      Number(r.id),
    );
    await sql(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '5 minutes' WHERE id = $1`, [ids[0]]);
    await sql(`UPDATE webhook_deliveries SET status = 'delivered' WHERE id = $1`, [ids[1]]);
    await sql(
      `UPDATE webhook_deliveries SET claimed_by = 'someone', claimed_until = now() + interval '1 minute' WHERE id = $1`,
      [ids[2]],
    );
    await sql(
      `UPDATE webhook_deliveries SET claimed_by = 'gone', claimed_until = now() - interval '1 second' WHERE id = $1`,
      [ids[3]],
    );
    expect(events).toHaveLength(4);
    const claimed = await claimDueDeliveries(getPool(), "me", 10);
    expect(claimed.map((row) => row.id)).toEqual([ids[3]]);
    expect((await sqlRow(`SELECT claimed_by FROM webhook_deliveries WHERE id = $1`, [ids[3]])).claimed_by).toBe("me");
  });

  it("releasing a dead dispatcher's claims makes its deliveries due again at once", async () => {
    await clearQueue();
    await pendingEvents(3);
    const claimed = await claimDueDeliveries(getPool(), "crashed", 10);
    expect(claimed).toHaveLength(3);
    expect(await listClaimingDispatchers(getPool())).toContain("crashed");
    expect(await claimDueDeliveries(getPool(), "survivor", 10)).toEqual([]);
    expect(await releaseDeadClaims(getPool(), ["crashed"])).toBe(3);
    expect((await claimDueDeliveries(getPool(), "survivor", 10)).map((row) => row.id).sort()).toEqual(
      claimed.map((row) => row.id).sort(),
    );
  });

  it("an event written in a transaction is a due delivery at once, claimed by the next dispatcher to look", async () => {
    await clearQueue();
    const { events } = await pendingEvents(3);
    expect(events.every((e) => e.deliveries === 1)).toBe(true);
    const claimed = await claimDueDeliveries(getPool(), "next", 10);
    expect(claimed.map((row) => row.eventType)).toEqual(Array(3).fill("endpoint.test"));
  });
});

describe("claiming fairly", () => {
  const caps = { perEndpoint: 4, perAccount: 5 };
  const claimIds = async (limit: number, who = "fair") =>
    (await claimDueDeliveries(getPool(), who, limit, undefined, caps)).map((row) => row.id);
  const pendingOf = async (endpointId: number) =>
    (
      await sql(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' ORDER BY id`, [
        endpointId,
      ])
    ).map((r) => Number(r.id));
  /** An endpoint of `accountId` with `count` due deliveries, made `ageSeconds` ago. */
  async function dueAt(accountId: number, count: number, ageSeconds: number) {
    const endpoint = await addEndpoint(accountId, receiver.url);
    for (let i = 0; i < count; i++) await recordEvent(accountId, "endpoint.test", { i }, endpoint.endpointId);
    await sql(
      `UPDATE webhook_deliveries SET next_attempt_at = now() - $2 * interval '1 second' WHERE endpoint_id = $1`,
      [endpoint.endpointId, ageSeconds],
    );
    return { endpointId: endpoint.endpointId, ids: await pendingOf(endpoint.endpointId) };
  }

  it("takes accounts in turn, not the oldest first: a backlog of one account does not hold back another's", async () => {
    await clearQueue();
    const flooder = await createAccount();
    const other = await createAccount();
    const old = await dueAt(flooder.accountId, 10, 60);
    const fresh = await dueAt(other.accountId, 10, 1);
    const claimed = await claimIds(4);
    expect(claimed.filter((id) => old.ids.includes(id))).toHaveLength(2);
    expect(claimed.filter((id) => fresh.ids.includes(id))).toHaveLength(2);
  });

  it("takes an account's endpoints in turn", async () => {
    await clearQueue();
    const account = await createAccount();
    const first = await dueAt(account.accountId, 6, 60);
    const second = await dueAt(account.accountId, 6, 1);
    const claimed = await claimIds(4);
    expect(claimed.filter((id) => first.ids.includes(id))).toHaveLength(2);
    expect(claimed.filter((id) => second.ids.includes(id))).toHaveLength(2);
  });

  it("never has more than an account's share in flight, over every dispatcher; other accounts still get theirs", async () => {
    await clearQueue();
    const flooder = await createAccount();
    const other = await createAccount();
    const floods = [];
    for (let i = 0; i < 3; i++) floods.push(await dueAt(flooder.accountId, 10, 60));
    const flooded = floods.flatMap((f) => f.ids);
    expect(await claimIds(100, "first")).toHaveLength(caps.perAccount);
    // A second dispatcher finds the share in use.
    expect(await claimIds(100, "second")).toEqual([]);
    const fresh = await dueAt(other.accountId, 3, 1);
    const later = await claimIds(100, "third");
    expect(later.sort()).toEqual(fresh.ids.sort());
    expect(later.some((id) => flooded.includes(id))).toBe(false);
  });

  it("never has more than the endpoint's cap in flight, and one while it is failing", async () => {
    await clearQueue();
    const account = await createAccount();
    const { endpointId } = await dueAt(account.accountId, 10, 1);
    expect(await claimIds(100)).toHaveLength(caps.perEndpoint);
    await sql(`UPDATE webhook_deliveries SET claimed_by = NULL, claimed_until = NULL WHERE endpoint_id = $1`, [
      endpointId,
    ]);
    await sql(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1`, [endpointId]);
    expect(await claimIds(100)).toHaveLength(1);
    expect(await claimIds(100)).toEqual([]);
  });

  it("takes nothing from a paused endpoint until its pause ends", async () => {
    await clearQueue();
    const account = await createAccount();
    const { endpointId } = await dueAt(account.accountId, 2, 1);
    await sql(`UPDATE webhook_endpoints SET paused_until = now() + interval '1 minute' WHERE id = $1`, [endpointId]);
    expect(await claimIds(100)).toEqual([]);
    await sql(`UPDATE webhook_endpoints SET paused_until = now() - interval '1 second' WHERE id = $1`, [endpointId]);
    expect(await claimIds(100)).toHaveLength(2);
  });
});

describe("recording delivered attempts in groups", () => {
  it("records each of many attempts offered at once exactly once, and tells which were recorded", async () => {
    await clearQueue();
    const { endpoint } = await pendingEvents(12);
    const claimed = await claimDueDeliveries(getPool(), "grouping", 12, undefined, UNCAPPED);
    await sql(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1`, [endpoint.endpointId]);
    const record = groupDeliveredRecords(getPool());
    const attempt = (id: number, n = 1) => ({
      deliveryId: id,
      attempt: n,
      at: new Date(),
      httpStatus: 204,
      responseBody: "",
      durationMs: 3,
    });
    const results = await Promise.all(claimed.map((row) => record(attempt(row.id))));
    expect(results).toEqual(Array(12).fill(true));
    // The same attempt again is not recorded twice; the next attempt of a delivered one neither.
    expect(await Promise.all([record(attempt(claimed[0]!.id)), record(attempt(claimed[1]!.id, 2))])).toEqual([
      false,
      false,
    ]);
    const rows = await sql(
      `SELECT d.status, d.attempts, d.claimed_by, count(a.id)::int AS recorded FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $1 GROUP BY d.id`,
      [endpoint.endpointId],
    );
    expect(rows).toHaveLength(12);
    expect(
      rows.every((r) => r.status === "delivered" && r.attempts === 1 && r.recorded === 1 && r.claimed_by === null),
    ).toBe(true);
    // The endpoint's failing streak ended with the first delivery.
    expect(
      (await sqlRow(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.endpointId])).failing_since,
    ).toBeNull();
  });
});

describe("a running dispatcher", () => {
  it("delivers every due event once, each recorded as one attempt, and frees its claims", async () => {
    await clearQueue();
    const { endpoint, events } = await pendingEvents(30);
    const dispatcher = startWebhookDispatcher({
      db: getPool(),
      concurrency: 4,
      pollIntervalMs: 50,
      delivery: { policy: DEV_POLICY },
      log: () => undefined,
    });
    try {
      await expect
        .poll(() => deliveredCount(endpoint.endpointId), {
          timeout: 30_000,
          interval: 100,
        })
        .toBe(30);
    } finally {
      await dispatcher.stop();
    }
    const ids = receiver.received.map((r) => r.headers["webhook-id"]).filter((id) => events.some((e) => e.id === id));
    expect(new Set(ids).size).toBe(30);
    expect(ids).toHaveLength(30);
    const rows = await sql(
      `SELECT d.attempts, d.claimed_by, count(a.id)::int AS recorded FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $1 GROUP BY d.id`,
      [endpoint.endpointId],
    );
    expect(rows.every((r) => r.attempts === 1 && r.recorded === 1 && r.claimed_by === null)).toBe(true);
  });

  it("is woken by a transaction of its own process that commits an event, without waiting for its poll", async () => {
    await clearQueue();
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    // A poll an hour away: only the wake can start this delivery within the test.
    const dispatcher = startWebhookDispatcher({
      db: getPool(),
      concurrency: 2,
      pollIntervalMs: 3_600_000,
      delivery: { policy: DEV_POLICY },
      log: () => undefined,
    });
    try {
      // The dispatcher's first look finds nothing due; it goes to sleep until the poll or a wake.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const event = await withTransaction((client) =>
        recordWebhookEvent(client, {
          accountId: account.accountId,
          type: "endpoint.test",
          data: {},
          endpointId: endpoint.endpointId,
        }),
      );
      await expect
        .poll(() => receiver.received.some((r) => r.headers["webhook-id"] === event.id), {
          timeout: 30_000,
          interval: 50,
        })
        .toBe(true);
    } finally {
      await dispatcher.stop();
    }
  });

  it("a rolled-back transaction's event is never delivered", async () => {
    await clearQueue();
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const dispatcher = startWebhookDispatcher({
      db: getPool(),
      concurrency: 2,
      pollIntervalMs: 50,
      delivery: { policy: DEV_POLICY },
      log: () => undefined,
    });
    let eventId = "";
    try {
      await expect(
        withTransaction(async (client) => {
          eventId = (
            await recordWebhookEvent(client, {
              accountId: account.accountId,
              type: "endpoint.test",
              data: {},
              endpointId: endpoint.endpointId,
            })
          ).id;
          throw new Error("the state change failed");
        }),
      ).rejects.toThrow("the state change failed");
      // A later event of the same account is delivered; the rolled-back one never was.
      const later = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
      await expect
        .poll(() => receiver.received.some((r) => r.headers["webhook-id"] === later.id), {
          timeout: 30_000,
          interval: 50,
        })
        .toBe(true);
    } finally {
      await dispatcher.stop();
    }
    expect(receiver.received.some((r) => r.headers["webhook-id"] === eventId)).toBe(false);
  });
});
