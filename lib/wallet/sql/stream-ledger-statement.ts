// GET /ledger?format=csv&from=&to=: every ledger entry of a range as one CSV statement, with the
// balance at `from` and at `to`, so a reseller can reconcile a month in one download (README: The
// API, GET /ledger).
//
// Consistency: everything (the two balances and every row) is read in one REPEATABLE READ, READ
// ONLY transaction, so an order settling mid-download changes neither the rows nor the balances:
// opening + the rows' amounts = closing, always (checked before the closing line is written).
//
// Cost that does not grow with the account's history: an entry's date never goes back within its
// account (the posting dates it under the account's row lock, lib/wallet/sql/post-ledger-entry.ts), so
// the balance at a time is the balance_after of the last entry dated before it, and the range's
// first and last entries are the first and last dated in it: four probes of the (account_id,
// created_at, account_seq) index, whether the account has a hundred entries or millions.
//
// Flat memory: rows are read in keyset batches of STATEMENT_BATCH_ROWS by id (no OFFSET, no
// dependency: a batch is one indexed range read on (account_id, id)), and the next batch is read
// only when the response body asks for more (ReadableStream pull), so a slow reader holds back the
// database instead of filling the heap. Both hosts write a stream body as it comes with
// backpressure (@hono/node-server on the lean host, Next.js route handlers).
//
// Each open statement holds one pool connection until it ends, so at most maxOpenStatements() run
// at once per process (the rest of the API keeps its connections), at most MAX_STATEMENTS_PER_KEY of
// them for one API key (so one slow reader cannot hold every slot), and a reader that stops
// reading for IDLE_TIMEOUT has its transaction ended by PostgreSQL (the download then breaks off,
// without its closing line).
import type pg from "pg";
import { getPool } from "../../db/pool";
import { sql } from "../../db/run-sql";
import { centsToUsd } from "../../money/cents-to-usd";
import { csvHeaderLine, csvNumber, csvRowLine } from "../../csv/to-csv";
import { LEDGER_CSV_HEADER, statementLineCells, toStatementLine, type LedgerLineRow } from "./list-ledger-entries";
import { env } from "../../config/env";
import { logger, messageOf } from "../../observability/logger";

const STATEMENT_BATCH_ROWS = 1000;
const IDLE_TIMEOUT = "60s";

/** A quarter of the pool (at least one) may serve statements at once. */
function maxOpenStatements(): number {
  return Math.max(1, Math.floor(env().pgPoolMax / 4));
}

/** One key streams one statement at a time: with two or more slots, others always find one free. */
const MAX_STATEMENTS_PER_KEY = 1;

let openStatements = 0;
const openByKey = new Map<number, number>();

/** Every statement slot is taken, or this key's; the caller should answer "retry shortly". */
export class StatementsBusyError extends Error {
  constructor(perKey = false) {
    super(
      perKey
        ? `this key already streams ${MAX_STATEMENTS_PER_KEY} ledger statement(s)`
        : `${maxOpenStatements()} ledger statements are already streaming`,
    );
  }
}

export interface StatementRange {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

export interface LedgerStatement {
  openingCents: number;
  closingCents: number;
  /** The CSV, UTF-8: header, opening line, entries oldest first, closing line. */
  body: ReadableStream<Uint8Array>;
}

interface Summary {
  opening_cents: number;
  closing_cents: number;
  first_id: number | null;
  last_id: number | null;
}

function balanceLine(type: "opening_balance" | "closing_balance", cents: number, at: Date): string {
  return csvRowLine(["", type, "", csvNumber(centsToUsd(cents), 2), "", "", at.toISOString()]);
}

/**
 * Opens the statement of `accountId` over [from, to). The balances are read before this returns
 * (so a failure to reach the database is an ordinary error answer); the rows stream from `body`.
 */
export async function openLedgerStatement(
  accountId: number,
  range: StatementRange,
  keyId: number,
): Promise<LedgerStatement> {
  const session = new StatementSession(keyId);
  let connection: pg.PoolClient;
  let summary: Summary;
  try {
    connection = await session.begin();
    summary = await readSummary(connection, accountId, range);
  } catch (error) {
    await session.end(error ?? new Error("statement failed"));
    throw error;
  }
  session.watch(connection);
  const body = streamStatement({ session, connection, accountId, range, summary });
  return { openingCents: summary.opening_cents, closingCents: summary.closing_cents, body };
}

/** One statement's slot (counted in all and per key) and its snapshot on a connection of its own. */
class StatementSession {
  ended = false;
  private client: pg.PoolClient | undefined;
  private readonly onConnectionError = (error: Error) => void this.end(error);

  constructor(private readonly keyId: number) {
    if ((openByKey.get(keyId) ?? 0) >= MAX_STATEMENTS_PER_KEY) throw new StatementsBusyError(true);
    if (openStatements >= maxOpenStatements()) throw new StatementsBusyError();
    openStatements++;
    openByKey.set(keyId, (openByKey.get(keyId) ?? 0) + 1);
  }

  /** Takes a connection and starts the read-only snapshot everything is read in. */
  async begin(): Promise<pg.PoolClient> {
    this.client = await getPool().connect();
    await this.client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    await this.client.query(`SET LOCAL idle_in_transaction_session_timeout = '${IDLE_TIMEOUT}'`);
    return this.client;
  }

  /** PostgreSQL ending a stalled reader's session (the idle timeout) surfaces here, between pulls. */
  watch(connection: pg.PoolClient): void {
    connection.once("error", this.onConnectionError);
  }

  /** Ends the transaction and gives the connection back, once; a broken connection is discarded. */
  async end(error?: unknown): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    openStatements--;
    const byKey = (openByKey.get(this.keyId) ?? 1) - 1;
    if (byKey > 0) openByKey.set(this.keyId, byKey);
    else openByKey.delete(this.keyId);
    const client = this.client;
    if (!client) return;
    client.off("error", this.onConnectionError);
    const done = await client.query(error ? "ROLLBACK" : "COMMIT").then(
      () => true,
      () => false,
    );
    client.release(error !== undefined || !done);
  }
}

async function readSummary(client: pg.PoolClient, accountId: number, range: StatementRange): Promise<Summary> {
  // Four probes of the (account_id, created_at, account_seq) index: the balances before `from` and
  // before `to`, and the range's first and last entries.
  const { from, to } = range;
  return (
    await client.query<Summary>(
      sql`SELECT coalesce((SELECT balance_after_cents FROM ledger_entries
                            WHERE account_id = ${accountId} AND created_at < ${from}
                            ORDER BY created_at DESC, account_seq DESC LIMIT 1), 0)::bigint AS opening_cents,
                 coalesce((SELECT balance_after_cents FROM ledger_entries
                            WHERE account_id = ${accountId} AND created_at < ${to}
                            ORDER BY created_at DESC, account_seq DESC LIMIT 1), 0)::bigint AS closing_cents,
                 (SELECT id FROM ledger_entries
                   WHERE account_id = ${accountId} AND created_at >= ${from} AND created_at < ${to}
                   ORDER BY created_at ASC, account_seq ASC LIMIT 1) AS first_id,
                 (SELECT id FROM ledger_entries
                   WHERE account_id = ${accountId} AND created_at >= ${from} AND created_at < ${to}
                   ORDER BY created_at DESC, account_seq DESC LIMIT 1) AS last_id`,
    )
  ).rows[0]!; // an aggregate of subqueries: always one row
}

interface OpenStatement {
  session: StatementSession;
  connection: pg.PoolClient;
  accountId: number;
  range: StatementRange;
  summary: Summary;
}

/** Where the rows' stream stands: the last id written and the sum of the amounts written. */
interface StatementCursor {
  afterId: number;
  streamedCents: number;
}

/** The CSV, a batch per pull: header and opening line, the rows, then the closing line. */
function streamStatement(statement: OpenStatement): ReadableStream<Uint8Array> {
  const { session, range, summary } = statement;
  const encoder = new TextEncoder();
  // Ids follow account_seq within an account (each is taken under the account's row lock), so the
  // range's entries are exactly the account's ids first_id..last_id: the batches start there.
  const cursor: StatementCursor = { afterId: summary.first_id === null ? 0 : summary.first_id - 1, streamedCents: 0 };
  let started = false;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (session.ended)
          throw new Error("the statement's transaction already ended (the reader stalled past the idle timeout)");
        if (!started) {
          started = true;
          controller.enqueue(
            encoder.encode(
              csvHeaderLine(LEDGER_CSV_HEADER) + balanceLine("opening_balance", summary.opening_cents, range.from),
            ),
          );
          return;
        }
        let text = await readBatch(statement, cursor);
        if (summary.last_id === null || cursor.afterId >= summary.last_id) {
          text += closingLine(statement, cursor.streamedCents);
          await session.end();
          controller.enqueue(encoder.encode(text));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        // The reader cancelled while a batch was being read: nobody is left to tell.
        if (cancelled) return;
        logger("ledger").error(`statement broke off: ${messageOf(error)}`);
        await session.end(error);
        controller.error(error);
      }
    },
    // The client went away: end the transaction now rather than at the idle timeout.
    async cancel() {
      cancelled = true;
      await session.end(new Error("download cancelled"));
    },
  });
}

/** The next batch of rows as CSV lines, or nothing once every row is written. */
async function readBatch(statement: OpenStatement, cursor: StatementCursor): Promise<string> {
  const { accountId, range, summary } = statement;
  if (summary.last_id === null || cursor.afterId >= summary.last_id) return "";
  const rows = (
    await statement.connection.query<LedgerLineRow>(
      sql`SELECT l.id, l.account_seq, l.kind, l.amount_cents, l.balance_after_cents, o.public_id, l.reason, l.created_at
            FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
           WHERE l.account_id = ${accountId} AND l.id > ${cursor.afterId} AND l.id <= ${summary.last_id}
             AND l.created_at >= ${range.from} AND l.created_at < ${range.to}
           ORDER BY l.id LIMIT ${STATEMENT_BATCH_ROWS}`,
    )
  ).rows;
  let text = "";
  for (const row of rows) {
    cursor.streamedCents += row.amount_cents;
    text += csvRowLine(statementLineCells(toStatementLine(row)));
  }
  // An empty batch before last_id cannot happen in one snapshot; stop rather than loop.
  cursor.afterId = rows.at(-1)?.id ?? summary.last_id;
  return text;
}

/**
 * The closing line. The snapshot makes the rows add up; if they ever did not, a statement that does
 * not add up must break off rather than end with a closing line the rows contradict.
 */
function closingLine({ accountId, range, summary }: OpenStatement, streamedCents: number): string {
  if (summary.opening_cents + streamedCents !== summary.closing_cents) {
    throw new Error(
      `statement of account ${accountId} does not add up: ${summary.opening_cents} + ${streamedCents} != ${summary.closing_cents}`,
    );
  }
  return balanceLine("closing_balance", summary.closing_cents, range.to);
}
