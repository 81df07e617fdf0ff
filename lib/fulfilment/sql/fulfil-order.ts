// Takes one order toward a terminal state. Safe to run twice, concurrently, or after a crash at
// any line: every change is a guarded transition (settle-order.ts), the move to another supplier
// is guarded too (route-order.ts), and the attempt is counted before the supplier is called, so a
// retry asks the supplier what happened instead of guessing.
//
// A live top-up goes to its pack's suppliers by priority. What a supplier answers decides:
// - delivered: completed, at that supplier's cost;
// - refused for the customer's reasons (player not found, a bad zone): cancelled and refunded,
//   no other supplier asked (it would say the same);
// - refused for its own reasons (down, out of stock, a definite rejection): the next supplier at
//   once; with none left, cancelled and refunded;
// - not known (timeout, lost answer, 5xx) or not settled yet: that supplier is asked again later,
//   until it knows or says it never received the order; only then may the order move on.
// So an order is never with two suppliers at once and is delivered at most once. A test top-up
// (test mode) always goes to the sandbox.
import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { getSupplier } from "../../suppliers/get-supplier";
import { supplierForAccount } from "../../suppliers/supplier-account";
import { SupplierConfigError } from "../../suppliers/supplier-config";
import { supplierKind } from "../../suppliers/kinds";
import { logger } from "../../observability/logger";
import { recordSupplierFailure, recordSupplierSuccess } from "../../suppliers/sql/record-supplier-result";
import { notifyCircuitChange } from "../../suppliers/notify-circuit-change";
import type { Supplier, TopupRequest, TopupStatus } from "../../suppliers/types";
import type { Product } from "../../generated/prisma/client";
import type { OrderRecord } from "../../orders/order-record";
import { enqueueFulfilment } from "./enqueue-fulfilment";
import { routeOrder, type SupplierRoute } from "./route-order";
import {
  cancelAndRefundOrder,
  completeOrder,
  flagOrderForAdmin,
  moveOrder,
  recordSupplierAttempt,
  type SupplierAttempt,
} from "./settle-order";
import { env, type Env } from "../../config/env";
import { sandboxServesLiveOrders } from "../../config/sandbox-serves-live-orders";
import { countSupplierCall } from "../../observability/metrics";

export interface FulfilmentTiming {
  /** First wait before asking the supplier again; doubles per attempt. */
  pollBaseMs: number;
  pollMaxMs: number;
  /** After this long without a settled outcome, the order is flagged for an admin. */
  deadlineMs: number;
}

/** SUPPLIER_POLL_MS, SUPPLIER_POLL_MAX_MS and SUPPLIER_DEADLINE_MS. */
function fulfilmentTiming(): FulfilmentTiming {
  return env().fulfilment;
}

/** The error of an order no supplier could take: none left untried, open or unpaused. */
const NO_SUPPLIER_LEFT = "SUPPLIER UNAVAILABLE";

type FulfilmentRow = OrderRecord &
  Pick<Product, "supplierSku"> & {
    countedAttempts: number | null;
    productId: number | null;
    triedSupplierIds: number[];
    /** The supplier the order is with after this statement, and its offer: the route, when there is one. */
    route: SupplierRoute | null;
  };

export async function fulfilOrder(
  orderId: number,
  timing: FulfilmentTiming = fulfilmentTiming(),
  config: Env = env(),
): Promise<void> {
  // Production never sends a live order to a sandbox-kind supplier, even one an admin added: the
  // placement already refuses packs without a real supplier, and this holds whatever happened since.
  const sandboxAllowed = sandboxServesLiveOrders(config);
  const order = await readAndCountAttempt(orderId, sandboxAllowed);
  if (!order || order.needsAdmin || (order.status !== "pending" && order.status !== "processing")) return;

  if (order.lineKind !== "topup") {
    await completeOrder(orderId, "codes delivered");
    return;
  }
  // Settled or flagged between the snapshot and the count: nothing to do.
  if (order.countedAttempts === null) return;
  if (order.status === "pending") await moveOrder(orderId, "processing", "attempt started");
  const job: TopupJob = { orderId, order, attempts: order.countedAttempts, timing };
  if (order.livemode) await fulfilLiveTopup(job, config, sandboxAllowed);
  else await fulfilTestTopup(job, config);
}

/** A top-up being fulfilled: its order as read, and the attempts counted with the supplier it is with. */
interface TopupJob {
  orderId: number;
  order: FulfilmentRow;
  attempts: number;
  timing: FulfilmentTiming;
}

async function readAndCountAttempt(orderId: number, sandboxAllowed: boolean): Promise<FulfilmentRow | undefined> {
  // One round trip and one commit: the order as it was and, for a top-up still to fulfil, its
  // attempt counted (durably, before the supplier is called) and its route: the supplier it is with
  // and that supplier's offer or, for a live top-up not routed yet, its pack's first supplier by
  // priority that is neither paused nor open (route-order.ts says the rules). When that supplier is
  // due a probe, the statement routes nothing and fulfilLiveTopup's routeOrder claims the probe or moves on.
  // Key and gift-card lines have no supplier attempt.
  const { rows } = await getPool().query<FulfilmentRow>(
    prepared(
      "fulfil-read-and-count",
      sql`WITH pick AS (
            SELECT s.id, s.name, o.supplier_id IS NULL AND s.circuit_open_until IS NOT NULL AS due_probe,
                   json_build_object('id', s.id, 'name', s.name, 'kind', s.kind, 'settings', s.settings,
                                     'updatedAt', s.updated_at, 'sku', f.sku,
                                     'consecutiveFailures', s.consecutive_failures) AS route
              FROM orders o
              JOIN suppliers s ON s.id = o.supplier_id OR o.supplier_id IS NULL
              JOIN supplier_kinds k ON k.kind = s.kind
              LEFT JOIN supplier_offers f ON f.supplier_id = s.id AND f.product_id = o.product_id
             WHERE o.id = ${orderId} AND o.livemode AND o.line_kind = 'topup'
               AND (o.supplier_id IS NOT NULL
                    OR f.id IS NOT NULL AND s.paused_at IS NULL AND (k.real OR ${sandboxAllowed}::boolean)
                       AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= now()))
             ORDER BY f.priority, f.id
             LIMIT 1
          ), counted AS (
            UPDATE orders o
               SET attempts = o.attempts + 1, updated_at = now(),
                   supplier_id = COALESCE(o.supplier_id, routed.id),
                   supplier = CASE WHEN o.supplier_id IS NULL AND routed.id IS NOT NULL THEN routed.name ELSE o.supplier END,
                   tried_supplier_ids = CASE WHEN o.supplier_id IS NULL AND routed.id IS NOT NULL
                                             THEN o.tried_supplier_ids || routed.id ELSE o.tried_supplier_ids END
              FROM (SELECT 1) one LEFT JOIN pick routed ON NOT routed.due_probe
             WHERE o.id = ${orderId} AND o.line_kind = 'topup' AND o.status IN ('pending', 'processing') AND NOT o.needs_admin
            -- The route only when it is the supplier the order is with now: another runner may have
            -- routed the order between this statement's snapshot and its update.
            RETURNING o.attempts, o.tried_supplier_ids, CASE WHEN o.supplier_id = routed.id THEN routed.route END AS route
          )
          SELECT (order_record(o)).*, p.supplier_sku AS "supplierSku", c.attempts AS "countedAttempts",
                 o.product_id AS "productId", COALESCE(c.tried_supplier_ids, o.tried_supplier_ids) AS "triedSupplierIds",
                 c.route
            FROM orders o
            LEFT JOIN products p ON p.id = o.product_id
            LEFT JOIN counted c ON true
           WHERE o.id = ${orderId}`,
    ),
  );
  return rows[0];
}

function topupRequest(order: FulfilmentRow, sku: string): TopupRequest {
  return {
    reference: order.publicId,
    sku,
    game: order.lineSlug,
    userId: order.userId ?? undefined,
    zoneId: order.zoneId ?? undefined,
    serverId: order.serverId ?? undefined,
  };
}

/** Test mode: the sandbox, with the pack's own SKU, never a supplier account. */
async function fulfilTestTopup(job: TopupJob, config: Env): Promise<void> {
  const { order } = job;
  const sandbox = getSupplier("sandbox", config);
  const request = topupRequest(order, order.supplierSku ?? order.catalogId);
  const outcome = await askSupplier(sandbox, job.attempts, request, order.publicId);
  await settleOrWait(job, outcome.status === "not_found" ? await sandbox.placeTopup(request) : outcome);
}

/** A live top-up, from supplier to supplier by priority until one settles it or it must wait. */
async function fulfilLiveTopup(job: TopupJob, config: Env, sandboxAllowed: boolean): Promise<void> {
  const { orderId, order } = job;
  let route = order.route && { ...order.route, updatedAt: new Date(order.route.updatedAt) };
  if (!route) {
    // Not routed by the statement above: every supplier paused or open, or the first one due a probe.
    const routed = await routeOrder({ id: orderId, productId: order.productId, from: null, tried: [], sandboxAllowed });
    if (routed.status === "moved_meanwhile") return;
    if (routed.status === "none_left") return void (await cancelAndRefundOrder(orderId, NO_SUPPLIER_LEFT));
    route = routed.route;
  }
  const tried = new Set([...order.triedSupplierIds, route.id]);

  for (;;) {
    // The order may have reached this account before it changed kind: production asks no sandbox
    // about it (nor sends it anything); an admin settles it with the supplier it went to.
    if (!sandboxAllowed && !supplierKind(route.kind)?.real) {
      await flagOrderForAdmin(orderId, `supplier ${route.name} is no longer a real supplier (kind ${route.kind})`);
      return;
    }
    const started = Date.now();
    const sku = route.sku ?? order.supplierSku ?? order.catalogId;
    const request = topupRequest(order, sku);
    const outcome = await askRoute(route, config, job.attempts, request, order.publicId);
    const attempt = supplierAttempt(route, outcome, Date.now() - started);
    countSupplierCall(attempt);
    const supplierSide =
      outcome.status === "unknown" || (outcome.status === "failed" && outcome.failure === "supplier");
    await recordCircuit(route, supplierSide);

    // Refused for its own reasons, or it never received the order: the next supplier, at once.
    const refusedBySupplier = outcome.status === "failed" && outcome.failure === "supplier";
    if (refusedBySupplier || outcome.status === "not_found") {
      const next = await routeOrder({
        id: orderId,
        productId: order.productId,
        from: route.id,
        tried: [...tried],
        sandboxAllowed,
      });
      // None left: a refusal ends the order; a supplier that never received it gets it again.
      if (next.status === "none_left" && outcome.status === "failed") {
        return void (await cancelAndRefundOrder(orderId, outcome.reason, {
          supplierRef: outcome.supplierRef,
          attempt,
        }));
      }
      await recordSupplierAttempt(orderId, attempt);
      if (next.status === "moved_meanwhile") return;
      if (next.status === "routed") {
        route = next.route;
        tried.add(route.id);
      }
      job.attempts = 1;
      continue;
    }
    await settleOrWait(job, outcome, attempt);
    return;
  }
}

/** The attempt as the order's events record it. */
function supplierAttempt(route: SupplierRoute, outcome: TopupStatus, latencyMs: number): SupplierAttempt {
  return {
    supplierId: route.id,
    supplier: route.name,
    outcome: outcome.status,
    ...(outcome.status === "failed" ? { failure: outcome.failure, reason: outcome.reason } : {}),
    ...(outcome.status === "unknown" ? { reason: outcome.reason } : {}),
    latencyMs,
  };
}

/** The settled outcomes end the order; the others have it asked about again later. */
async function settleOrWait(
  job: TopupJob,
  outcome: Exclude<TopupStatus, { status: "not_found" }>,
  attempt?: SupplierAttempt,
): Promise<void> {
  const { orderId, timing, attempts } = job;
  const supplierRef = ("supplierRef" in outcome && outcome.supplierRef) || undefined;
  switch (outcome.status) {
    // A settled outcome's reference is written by the settlement itself: one commit, not two.
    case "success":
      await completeOrder(orderId, "supplier confirmed delivery", { supplierRef, attempt });
      return;
    case "failed":
      await cancelAndRefundOrder(orderId, outcome.reason, { supplierRef, attempt });
      return;
    case "pending":
    case "unknown": {
      if (attempt) await recordSupplierAttempt(orderId, attempt);
      if (supplierRef)
        await getPool().query(sql`UPDATE orders SET supplier_ref = ${supplierRef} WHERE id = ${orderId}`);
      if (Date.now() - job.order.createdAt.getTime() >= timing.deadlineMs) {
        await flagOrderForAdmin(orderId, `supplier outcome not settled after ${attempts} attempts`);
        return;
      }
      if (outcome.status === "unknown") {
        await moveOrder(orderId, "pending", `supplier outcome unknown (${outcome.reason}); asking again`);
      }
      const delay = Math.min(timing.pollMaxMs, timing.pollBaseMs * 2 ** Math.min(attempts - 1, 16));
      await enqueueFulfilment(getPool(), orderId, new Date(Date.now() + delay));
      return;
    }
  }
}

/** The first attempt places the top-up; a later one asks what became of it. */
function askSupplier(supplier: Supplier, attempts: number, request: TopupRequest, reference: string) {
  return attempts > 1 ? supplier.checkTopup(reference) : supplier.placeTopup(request);
}

/**
 * askSupplier through the account's client. When this worker cannot build it (a secret's variable
 * unset, settings it refuses: an operator's mistake, logged), the outcome stands for the call: a
 * refusal when the order was never sent there, so the next supplier takes it; not known when it may
 * have been, so it is asked again until the deadline flags it for an admin. Never a stuck order.
 */
async function askRoute(
  route: SupplierRoute,
  config: Env,
  attempts: number,
  request: TopupRequest,
  reference: string,
): Promise<TopupStatus> {
  let supplier: Supplier;
  try {
    supplier = supplierForAccount(route, config);
  } catch (error) {
    if (!(error instanceof SupplierConfigError)) throw error;
    logger("worker").error(`order ${reference} not sent to supplier ${route.name}: ${error.message}`);
    return attempts > 1
      ? { status: "unknown", reason: "supplier account misconfigured" }
      : { status: "failed", failure: "supplier", reason: NO_SUPPLIER_LEFT };
  }
  return askSupplier(supplier, attempts, request, reference);
}

/** The supplier's circuit (record-supplier-result.ts); admins are told when it opens or closes. */
async function recordCircuit(route: SupplierRoute, failed: boolean): Promise<void> {
  // A healthy supplier's row is not written on every order: only when there is something to reset.
  const change = failed
    ? await recordSupplierFailure(route.id)
    : route.consecutiveFailures > 0
      ? await recordSupplierSuccess(route.id)
      : undefined;
  if (change) void notifyCircuitChange(route.name, change).catch(() => undefined);
}
