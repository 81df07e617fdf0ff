// The worker's look at the catalog (every WORKER_SWEEP_MS, one worker at a time): product.updated
// events for what each watching account sees change. The changes themselves are marked by triggers
// in the transactions that make them (prisma/functions/stamp_product_change.sql, mark_*.sql), so no
// writer pays more than a row per pack; stock crossing zero is looked for here, off the placement path.
// Per account the look compares each marked pack as product_view() shows it to that account with
// what the account was last told (account_product_views), and sends an event only where they differ:
// a pack changed many times between two looks (a price list import, a line's prices moved, a tier
// edited twice) is one event per account, and an account that sees no difference (another tier's
// price) gets none.
import type pg from "pg";
import { getPool, withTransaction } from "../../db/pool";
import { sql } from "../../db/run-sql";
import { realSupplierRequired } from "../../config/sandbox-serves-live-orders";
import { recordWebhookEvents } from "../../webhooks/sql/record-webhook-event";
import { toProductView, type ProductViewRecord } from "../product-view";

/** An account told of catalog changes: one whose holder can use the API with a key of its mode. */
interface Watcher {
  accountId: number;
  /** The holder's account, for a test account (its tier is the holder's); null for a live one. */
  liveAccountId: number | null;
  priceTierId: number | null;
  /** Started watching in this look: its views were just taken as they are, nothing to tell. */
  joined: boolean;
}

interface Mark {
  id: number;
  mark: number;
}

export interface CatalogLook {
  /** Packs whose stock crossed zero since the last look. */
  stockCrossings: number;
  events: number;
}

/** Events written per statement: a 5,000-pack import is a few round trips per account. */
const EVENTS_PER_STATEMENT = 1_000;

/** PostgreSQL's lock for the look: one worker at a time, so two never tell an account the same change. */
const LOOK_LOCK = "catalog changes";

/**
 * Looks once. Undefined when another worker is looking (unless `wait`: then after it). Each account's
 * events and views commit together, so a look cut short (the worker stopped, the database gone) leaves
 * its marks for the next, which tells only what is still untold.
 */
export async function sendCatalogChanges(options: { wait?: boolean } = {}): Promise<CatalogLook | undefined> {
  const client = await getPool().connect();
  try {
    const locked = options.wait
      ? (await client.query(sql`SELECT pg_advisory_lock(hashtext(${LOOK_LOCK})) IS NOT NULL AS locked`)).rows[0]
      : (await client.query(sql`SELECT pg_try_advisory_lock(hashtext(${LOOK_LOCK})) AS locked`)).rows[0];
    if (!locked?.locked) return undefined;
    try {
      return await look(client);
    } finally {
      await client.query(sql`SELECT pg_advisory_unlock(hashtext(${LOOK_LOCK}))`);
    }
  } finally {
    client.release();
  }
}

async function look(client: pg.PoolClient): Promise<CatalogLook> {
  const stockCrossings = await stampStockCrossings(client);
  const products = (
    await client.query<Mark>(sql`SELECT product_id AS id, mark FROM catalog_changes ORDER BY product_id`)
  ).rows;
  const accounts = (
    await client.query<Mark>(sql`SELECT account_id AS id, mark FROM catalog_account_changes ORDER BY account_id`)
  ).rows;
  const watchers = await syncWatchers(client);
  const productIds = products.map((row) => row.id);
  const wholeCatalog = new Set(accounts.map((row) => row.id));
  let events = 0;
  for (const watcher of watchers) {
    const realSupplierNeeded = realSupplierRequired(watcher.liveAccountId === null);
    if (watcher.joined) {
      await takeViews(client, watcher, realSupplierNeeded);
      continue;
    }
    const all = wholeCatalog.has(watcher.accountId) || wholeCatalog.has(watcher.liveAccountId ?? -1);
    if (!all && productIds.length === 0) continue;
    events += await tellChanges(watcher, all ? null : productIds, realSupplierNeeded);
  }
  await unmark(client, products, accounts);
  return { stockCrossings, events };
}

/**
 * Code-delivered packs whose stock ran out or came back since the last look: dated and marked. One
 * index probe per pack; the first look after a pack is created only records its state.
 */
async function stampStockCrossings(client: pg.PoolClient): Promise<number> {
  const { rowCount } = await client.query(
    sql`WITH flipped AS (
          UPDATE products p
             SET has_stock = s.has_stock,
                 changed_at = CASE WHEN p.has_stock IS NULL THEN p.changed_at ELSE now() END
            FROM (SELECT p.id, EXISTS (SELECT 1 FROM inventory_codes c
                                        WHERE c.product_id = p.id AND c.status = 'available') AS has_stock
                    FROM products p
                    JOIN game_lines l ON l.id = p.line_id AND l.kind IN ('gamekey', 'giftcard')) s
           WHERE p.id = s.id AND p.has_stock IS DISTINCT FROM s.has_stock
          RETURNING p.id
        )
        INSERT INTO catalog_changes AS c (product_id) SELECT id FROM flipped
        ON CONFLICT (product_id) DO UPDATE SET mark = c.mark + 1`,
  );
  return rowCount ?? 0;
}

/**
 * The watching accounts, brought up to date: an account whose holder can use the API (on, not
 * blocked or banned) with an unrevoked key of its mode (a test account: a test key). One that stops
 * watching forgets its views; one that starts is told nothing of what it finds.
 */
async function syncWatchers(client: pg.PoolClient): Promise<Watcher[]> {
  const { rows } = await client.query<Watcher>(
    sql`WITH audience AS (
          SELECT a.id AS account_id, a.live_account_id, COALESCE(h.price_tier_id, a.price_tier_id) AS price_tier_id
            FROM accounts a
            JOIN accounts h ON h.id = COALESCE(a.live_account_id, a.id)
           WHERE h.api_enabled AND NOT h.api_disabled_by_admin AND h.banned_at IS NULL
             AND EXISTS (SELECT 1 FROM api_keys k
                          WHERE k.account_id = h.id AND k.revoked_at IS NULL
                            AND k.livemode = (a.live_account_id IS NULL))
        ), gone AS (
          DELETE FROM catalog_watchers w
           WHERE NOT EXISTS (SELECT 1 FROM audience WHERE audience.account_id = w.account_id)
        ), joined AS (
          INSERT INTO catalog_watchers (account_id) SELECT account_id FROM audience
          ON CONFLICT (account_id) DO NOTHING
          RETURNING account_id
        )
        SELECT audience.account_id AS "accountId", audience.live_account_id AS "liveAccountId",
               audience.price_tier_id AS "priceTierId",
               EXISTS (SELECT 1 FROM joined WHERE joined.account_id = audience.account_id) AS joined
          FROM audience
         ORDER BY audience.account_id`,
  );
  return rows;
}

/** A new watcher's views: the listed packs as it sees them now. */
async function takeViews(client: pg.PoolClient, watcher: Watcher, realSupplierRequired: boolean): Promise<void> {
  await client.query(
    sql`INSERT INTO account_product_views (account_id, product_id, pack_name, price_cents, unorderable_reason)
        SELECT ${watcher.accountId}::int, v."productId", v."packName", v."priceCents", v."unorderableReason"
          FROM product_view(${watcher.priceTierId}::int, ${realSupplierRequired}::boolean) v
         WHERE v.listed
        ON CONFLICT (account_id, product_id) DO NOTHING`,
  );
}

/**
 * One account: the packs (null: every pack) whose view differs from what it was told, told and
 * remembered in one transaction. A pack it never saw is told once it is listed.
 */
async function tellChanges(
  watcher: Watcher,
  productIds: number[] | null,
  realSupplierRequired: boolean,
): Promise<number> {
  return withTransaction(async (tx) => {
    const { rows } = await tx.query<ProductViewRecord>(
      sql`SELECT v."productId", v."catalogId", v."packName", v."priceCents", v.slug, v."gameName",
                 v."productName", v.kind, v.listed, v."unorderableReason", v."changedAt"
            FROM product_view(${watcher.priceTierId}::int, ${realSupplierRequired}::boolean) v
            LEFT JOIN account_product_views o ON o.account_id = ${watcher.accountId}::int AND o.product_id = v."productId"
           WHERE (${productIds}::int[] IS NULL OR v."productId" = ANY (${productIds}::int[]))
             AND CASE WHEN o.product_id IS NULL THEN v.listed
                      ELSE (o.pack_name, o.price_cents, o.unorderable_reason)
                           IS DISTINCT FROM (v."packName", v."priceCents", v."unorderableReason")
                 END
           ORDER BY v."lineSortOrder", v."lineId", v."sortOrder", v."productId"`,
    );
    if (rows.length === 0) return 0;
    await tx.query(
      sql`INSERT INTO account_product_views AS o (account_id, product_id, pack_name, price_cents, unorderable_reason)
          SELECT ${watcher.accountId}::int, r.product_id, r.pack_name, r.price_cents, r.unorderable_reason
            FROM unnest(${rows.map((row) => row.productId)}::int[], ${rows.map((row) => row.packName)}::text[],
                        ${rows.map((row) => row.priceCents)}::bigint[], ${rows.map((row) => row.unorderableReason)}::text[])
                 AS r(product_id, pack_name, price_cents, unorderable_reason)
          ON CONFLICT (account_id, product_id) DO UPDATE
             SET pack_name = EXCLUDED.pack_name, price_cents = EXCLUDED.price_cents,
                 unorderable_reason = EXCLUDED.unorderable_reason`,
    );
    for (let start = 0; start < rows.length; start += EVENTS_PER_STATEMENT)
      await recordWebhookEvents(tx, {
        accountId: watcher.accountId,
        type: "product.updated",
        data: rows.slice(start, start + EVENTS_PER_STATEMENT).map(toProductView),
      });
    return rows.length;
  });
}

/** The marks this look read and told, unless marked again meanwhile (or being marked now): kept for the next. */
async function unmark(client: pg.PoolClient, products: Mark[], accounts: Mark[]): Promise<void> {
  if (products.length > 0)
    await client.query(
      sql`DELETE FROM catalog_changes c
           WHERE c.product_id IN (
                   SELECT m.product_id FROM catalog_changes m
                     JOIN unnest(${products.map((row) => row.id)}::int[], ${products.map((row) => row.mark)}::bigint[])
                          AS r(id, mark) ON r.id = m.product_id AND r.mark = m.mark
                      FOR UPDATE OF m SKIP LOCKED)`,
    );
  if (accounts.length > 0)
    await client.query(
      sql`DELETE FROM catalog_account_changes c
           WHERE c.account_id IN (
                   SELECT m.account_id FROM catalog_account_changes m
                     JOIN unnest(${accounts.map((row) => row.id)}::int[], ${accounts.map((row) => row.mark)}::bigint[])
                          AS r(id, mark) ON r.id = m.account_id AND r.mark = m.mark
                      FOR UPDATE OF m SKIP LOCKED)`,
    );
}
