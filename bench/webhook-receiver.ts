// The bench's webhook receiver: the tests' receiver (tests/helpers/webhook-receiver.ts: node:http on
// 127.0.0.1, answers 200 as soon as the body is in, keeps each request's headers and raw body),
// with one URL path per account so each delivery can be checked against its own endpoint's secret.
// Checking happens after a round (take()), not while deliveries arrive, so the answers stay fast.
import { Webhook } from "standardwebhooks";
import { WebhookReceiver, type ReceivedWebhook } from "@/tests/helpers/webhook-receiver";

export interface DeliveryTally {
  /** Requests received (an at-least-once sender may repeat one). */
  requests: number;
  /** Distinct webhook-id headers among them: the events that arrived. */
  events: number;
  /** Deliveries checked with standardwebhooks and the endpoint's secret, and how many passed. */
  sampled: number;
  verified: number;
  /** The first few verification failures, for the report. */
  failures: string[];
  /** Arrival time of the last request (ms since the epoch), undefined when none came. */
  lastAt?: number;
  /** First arrival (ms since the epoch) of each order.completed event, by the order's trxid. */
  completedArrivals: Map<string, number>;
}

/** The first arrival of each order.completed event (the body is `{ type, timestamp, livemode, data }`, data the invoice). */
function completedArrivals(received: ReceivedWebhook[]): Map<string, number> {
  const arrivals = new Map<string, number>();
  for (const { body, receivedAt } of received) {
    const event = JSON.parse(body) as { type?: string; data?: { trxid?: string } };
    const trxid = event.data?.trxid;
    if (event.type !== "order.completed" || trxid === undefined) continue;
    arrivals.set(trxid, Math.min(arrivals.get(trxid) ?? Infinity, receivedAt));
  }
  return arrivals;
}

export class BenchWebhookReceiver {
  private readonly verifiers = new Map<string, Webhook>();

  private constructor(private readonly receiver: WebhookReceiver) {}

  static async start(): Promise<BenchWebhookReceiver> {
    return new BenchWebhookReceiver(await WebhookReceiver.start());
  }

  /** The URL an account's endpoint points at. */
  urlFor(accountId: number): string {
    return `${this.receiver.url}/${accountId}`;
  }

  /** The endpoint's secret (shown once by addWebhookEndpoint), to verify what arrives on its path. */
  setSecret(accountId: number, secret: string): void {
    this.verifiers.set(new URL(this.urlFor(accountId)).pathname, new Webhook(secret));
  }

  /**
   * Everything received since the last call, counted; `sample` of them, spread evenly, verified.
   * Verification also checks the timestamp is within 5 minutes, so call it soon after the round.
   */
  take(sample: number): DeliveryTally {
    const received = this.receiver.received.splice(0);
    const step = Math.max(1, Math.floor(received.length / Math.max(1, sample)));
    let sampled = 0;
    let verified = 0;
    const failures: string[] = [];
    for (let i = 0; i < received.length && sampled < sample; i += step) {
      const { path, body, headers } = received[i]!;
      sampled++;
      const verifier = this.verifiers.get(path);
      try {
        if (!verifier) throw new Error("no endpoint secret for this path");
        verifier.verify(body, headers);
        verified++;
      } catch (error) {
        if (failures.length < 5) failures.push(`${path} ${headers["webhook-id"]}: ${(error as Error).message}`);
      }
    }
    return {
      requests: received.length,
      events: new Set(received.map((r) => r.headers["webhook-id"])).size,
      sampled,
      verified,
      failures,
      lastAt: received.length ? Math.max(...received.map((r) => r.receivedAt)) : undefined,
      completedArrivals: completedArrivals(received),
    };
  }

  close(): Promise<void> {
    return this.receiver.close();
  }
}
