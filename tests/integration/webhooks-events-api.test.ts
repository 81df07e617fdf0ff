// GET /events and POST /webhooks/replay over real HTTP. Events are produced by the real settling
// functions; a receiver that is down for the whole retry schedule misses every delivery, and
// GET /events?after= still returns every event, in order, without gaps.
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { withTransaction } from "@/lib/db/pool";
import { cancelAndRefundOrder, completeOrder } from "@/lib/fulfilment/sql/settle-order";
import { recordWebhookEvent } from "@/lib/webhooks/sql/record-webhook-event";
import { MAX_ATTEMPTS } from "@/lib/webhooks/retry-schedule";
import { replayWebhookEvents } from "@/lib/webhooks/sql/replay-webhook-events";
import { api } from "../helpers/api";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { addEndpoint, deliverWebhook, DEV_POLICY } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase();

async function allEvents(key: string, limit = 7) {
  const events: any[] = [];
  let after = 0;
  for (;;) {
    const res = await api(`/events?after=${after}&limit=${limit}`, { key });
    expect(res.status).toBe(200);
    events.push(...res.json.events);
    after = res.json.nextAfter;
    if (!res.json.hasMore) return events;
  }
}

describe("GET /events after a receiver was down for the whole schedule", () => {
  it("returns every event in order with no gaps; replay then re-sends them under the same ids", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    // A receiver that is gone: its port answers nothing (connection refused).
    const gone = await WebhookReceiver.start();
    const goneUrl = gone.url;
    await gone.close();
    const endpoint = await addEndpoint(account.accountId, goneUrl);

    // Orders placed over the API (no worker runs in this file), settled concurrently by the same
    // functions the worker and the dashboard use.
    const placed = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        order(account.key, { pid: "SVCBR60", trxid: newTrxid(`ev${i}`), userId: `52${i}00` }),
      ),
    );
    expect(placed.every((p) => p.json.orderCreated)).toBe(true);
    const ids = (await sql(`SELECT id, public_id FROM orders WHERE account_id = $1 ORDER BY id`, [
      account.accountId,
    ])) as { id: number; public_id: string }[];
    await Promise.all(
      ids.map((o, i) => (i % 4 === 0 ? cancelAndRefundOrder(o.id, "SUPPLIER REJECTED") : completeOrder(o.id, "test"))),
    );
    // A settlement attempted twice settles once: no second event.
    await completeOrder(ids[1]!.id, "again");
    await expectBooksBalance();

    // Every delivery fails through the whole schedule.
    const deliveries = await sql(`SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.id`, [
      endpoint.endpointId,
    ]);
    expect(deliveries).toHaveLength(16);
    for (const delivery of deliveries) {
      let now = new Date();
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const result = await deliverWebhook(delivery.id, { now, policy: DEV_POLICY });
        if (result.outcome !== "retrying") {
          expect(result).toMatchObject({ outcome: "failed", reason: `gave up after ${MAX_ATTEMPTS} attempts` });
          break;
        }
        expect(result.error).toBe("connection failed");
        now = result.nextAttemptAt;
      }
    }
    expect(
      await sql(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status`, [
        endpoint.endpointId,
      ]),
    ).toEqual([{ status: "failed", n: 16 }]);

    const events = await allEvents(account.key);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(events.filter((e) => e.type === "order.cancelled")).toHaveLength(4);
    expect(events.filter((e) => e.type === "order.completed")).toHaveLength(12);
    expect(new Set(events.map((e) => e.data.orderId))).toEqual(new Set(ids.map((o) => o.public_id)));
    for (const event of events) {
      expect(event.id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
      const invoice = await api(`/orders/${event.data.orderId}`, { key: account.key });
      const { success, ...expected } = invoice.json;
      expect(event.data).toEqual(expected);
    }
    expect((await api(`/events?after=16`, { key: account.key })).json).toEqual({
      success: true,
      events: [],
      hasMore: false,
      nextAfter: 16,
    });

    // Another account sees none of them.
    const other = await createAccount();
    expect((await api(`/events`, { key: other.key })).json.events).toEqual([]);

    // The receiver is back (a new endpoint); replay sequences 5..10 to it only.
    const back = await WebhookReceiver.start();
    try {
      const fresh = await addEndpoint(account.accountId, back.url);
      const replay = await api(`/webhooks/replay`, {
        key: account.key,
        body: { after: 4, through: 10, endpointId: fresh.endpointId },
      });
      expect(replay.json).toEqual({ success: true, events: 6, deliveries: 6 });
      const queued = await sql(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id`, [
        fresh.endpointId,
      ]);
      for (const delivery of queued)
        expect(await deliverWebhook(delivery.id, { policy: DEV_POLICY })).toMatchObject({ outcome: "delivered" });
      expect(back.received.map((r) => r.headers["webhook-id"])).toEqual(events.slice(4, 10).map((e) => e.id));
      for (const request of back.received)
        expect(new Webhook(fresh.secret).verify(request.body, request.headers)).toMatchObject({
          type: expect.stringMatching(/^order\./),
        });

      // By id, to every enabled endpoint (the old one is failing but not disabled: two deliveries);
      // an unknown endpoint is 404; a body without a range is 400.
      const byId = await api(`/webhooks/replay`, {
        key: account.key,
        body: { eventIds: [events[0].id, "evt_unknown"] },
      });
      expect(byId.json).toEqual({ success: true, events: 1, deliveries: 2 });
      // An endpoint id the account does not have is its own 404, not the unknown-path one.
      expect(
        (await api(`/webhooks/replay`, { key: account.key, body: { after: 0, endpointId: 999_999 } })).json,
      ).toEqual({
        success: false,
        error: "ENDPOINT NOT FOUND",
        code: "ENDPOINT_NOT_FOUND",
      });
      expect((await api(`/webhooks/replay`, { key: account.key, body: {} })).status).toBe(400);
      // Another account cannot replay this account's events to anything.
      expect((await api(`/webhooks/replay`, { key: other.key, body: { eventIds: [events[0].id] } })).json).toEqual({
        success: true,
        events: 0,
        deliveries: 0,
      });
    } finally {
      await back.close();
    }
  }, 60_000);

  it("validates after and limit", async () => {
    const account = await createAccount();
    for (const query of ["after=-1", "after=abc", "limit=0", "limit=501", "limit=1.5"]) {
      const res = await api(`/events?${query}`, { key: account.key });
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe("INVALID REQUEST");
    }
    expect((await api(`/events`)).status).toBe(401);
  });
});

describe("POST /webhooks/replay quotas", () => {
  async function accountWithEvents(count: number) {
    const account = await createAccount();
    const receiver = await WebhookReceiver.start();
    await receiver.close();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    for (let i = 0; i < count; i++)
      await withTransaction((client) =>
        recordWebhookEvent(client, { accountId: account.accountId, type: "wallet.credited", data: { i } }),
      );
    // The events' own deliveries are done with: only replays queue from here.
    await sql(`UPDATE webhook_deliveries SET status = 'delivered' WHERE endpoint_id = $1`, [endpoint.endpointId]);
    return { account, endpoint };
  }

  it("does not queue an event again for an endpoint it is still waiting for", async () => {
    const { account } = await accountWithEvents(3);
    const replay = () => api(`/webhooks/replay`, { key: account.key, body: { after: 0 } });
    expect((await replay()).json).toEqual({ success: true, events: 3, deliveries: 3 });
    expect((await replay()).json).toEqual({ success: true, events: 3, deliveries: 0 });
  });

  it("holds an account to 10,000 replayed deliveries an hour: 429 with Retry-After, nothing queued; an admin's replay still goes", async () => {
    const { account, endpoint } = await accountWithEvents(5);
    const other = await accountWithEvents(1);
    // Most of the hour's quota already used 20 minutes ago.
    await sql(
      `INSERT INTO webhook_replays (account_id, deliveries, created_at) VALUES ($1, 9998, now() - interval '20 minutes')`,
      [account.accountId],
    );
    const partial = await api(`/webhooks/replay`, { key: account.key, body: { after: 0 } });
    expect(partial.json).toEqual({ success: true, events: 5, deliveries: 2 });
    await sql(`UPDATE webhook_deliveries SET status = 'delivered' WHERE endpoint_id = $1`, [endpoint.endpointId]);
    const refused = await api(`/webhooks/replay`, { key: account.key, body: { after: 0 } });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      success: false,
      code: "REPLAY_QUOTA_EXCEEDED",
      error: "REPLAY QUOTA EXCEEDED",
    });
    // About 40 minutes until the oldest replay of the hour no longer counts.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(35 * 60);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(40 * 60);
    const pending = await sql(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [
      endpoint.endpointId,
    ]);
    expect(pending).toHaveLength(0);
    // Another account's quota is its own.
    expect((await api(`/webhooks/replay`, { key: other.account.key, body: { after: 0 } })).json).toEqual({
      success: true,
      events: 1,
      deliveries: 1,
    });
    // An admin replaying for the account (the dashboard) is audited, not held to it.
    expect(await replayWebhookEvents({ accountId: account.accountId, after: 0, actor: "admin:test" })).toEqual({
      status: "queued",
      events: 5,
      deliveries: 5,
    });
  });
});

describe("sequence numbers", () => {
  it("are gapless and commit in order under concurrent writers, rolled-back transactions included", async () => {
    const account = await createAccount();
    const writers = Array.from({ length: 40 }, (_, i) =>
      withTransaction(async (client) => {
        await recordWebhookEvent(client, { accountId: account.accountId, type: "endpoint.test", data: { i } });
        // Every fifth writer fails after taking its number: the number is handed out again.
        if (i % 5 === 0) throw new Error("rolled back on purpose");
      }).catch((error: Error) => error.message),
    );
    // A reader polling while writers commit never sees a later number without the earlier ones.
    let readerSawGap = false;
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const seqs = (await allEvents(account.key, 500)).map((e) => e.sequence);
        if (seqs.some((s, i) => s !== i + 1)) readerSawGap = true;
      }
    })();
    const outcomes = await Promise.all(writers);
    reading = false;
    await reader;
    expect(outcomes.filter((o) => o === "rolled back on purpose")).toHaveLength(8);
    const seqs = (await allEvents(account.key, 500)).map((e) => e.sequence);
    expect(seqs).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    expect(readerSawGap).toBe(false);
  });
});
