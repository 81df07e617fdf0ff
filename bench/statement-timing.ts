// Times each statement of the order transaction (and the key look-up before it), as the client
// sees it, to find where POST /orders spends its time in PostgreSQL. Runs against the bench's
// database as a finished `npm run bench` left it (accounts, keys, catalog), with the same
// connection string rules as the bench.
//   DATABASE_URL=... node --import tsx bench/statement-timing.ts [transactions=300] [parallel=1] [named]
// "named" sends every statement as a named prepared statement (parsed and planned once per
// connection), to show what that would save over the unnamed statements lib/orders sends today.
import crypto from "node:crypto";
import pg from "pg";
import { openBenchDatabase } from "./database";
import { ADD_JOB, DEBIT, INSERT_EVENT, INSERT_LEDGER, INSERT_ORDER, LOOKUP, OPEN_PLACEMENT } from "./floor-sql";

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

const STEPS = [
  "auth lookup",
  "BEGIN",
  "open placement",
  "insert order",
  "debit",
  "insert ledger",
  "insert event",
  "add_job",
  "COMMIT",
] as const;
type Step = (typeof STEPS)[number];

async function timed<T>(times: Map<Step, number[]>, step: Step, work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const result = await work();
  times.get(step)!.push(Number(process.hrtime.bigint() - started) / 1e6);
  return result;
}

let named = false;

/** The statement as lib/ sends it (unnamed: parsed and planned on every call), or prepared once. */
function statement(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return named ? { name: `timing-${name}`, text, values } : { text, values };
}

async function lane(
  url: string,
  keys: { hash: string; keyId: number; accountId: number }[],
  count: number,
  lane: number,
  times: Map<Step, number[]>,
) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < count; i++) {
      const key = keys[(lane * count + i) % keys.length]!;
      const trxid = `timing-${Date.now().toString(36)}-${lane}-${i}`;
      await timed(times, "auth lookup", () =>
        client.query({ name: "auth-key-lookup", text: LOOKUP, values: [key.hash] }),
      );
      await timed(times, "BEGIN", () => client.query("BEGIN"));
      const opened = (
        await timed(times, "open placement", () =>
          client.query(statement("open", OPEN_PLACEMENT, [key.accountId, trxid, "SVCBR60"])),
        )
      ).rows[0];
      const entry = opened.entry;
      const id = opened.next_id as number;
      const fingerprint = crypto.createHash("sha256").update(trxid).digest("hex");
      await timed(times, "insert order", () =>
        client.query(
          statement("insert-order", INSERT_ORDER, [
            id,
            `SVCAPI-BR-${id.toString(36).toUpperCase()}-TIMING`,
            key.accountId,
            key.keyId,
            trxid,
            trxid,
            fingerprint,
            entry.productId,
            entry.catalogId,
            entry.lineSlug,
            entry.lineKind,
            entry.packName,
            entry.priceCents,
            1,
            entry.priceCents,
            "1234567",
            null,
            null,
            entry.supplier,
          ]),
        ),
      );
      const debited = await timed(times, "debit", () =>
        client.query(statement("debit", DEBIT, [key.accountId, -entry.priceCents, 0])),
      );
      await timed(times, "insert ledger", () =>
        client.query(
          statement("ledger", INSERT_LEDGER, [
            key.accountId,
            "debit",
            -entry.priceCents,
            debited.rows[0].balance_cents,
            id,
            `api-key:${key.keyId}`,
            "timing",
            null,
            debited.rows[0].ledger_count,
          ]),
        ),
      );
      await timed(times, "insert event", () =>
        client.query(statement("event", INSERT_EVENT, [id, null, "processing", "placed"])),
      );
      await timed(times, "add_job", () =>
        client.query(statement("add-job", ADD_JOB, ["fulfil_order", id, `order:${id}`, null])),
      );
      await timed(times, "COMMIT", () => client.query("COMMIT"));
    }
  } finally {
    await client.end();
  }
}

async function main() {
  const transactions = Number(process.argv[2] ?? 300);
  const parallel = Number(process.argv[3] ?? 1);
  named = process.argv[4] === "named";
  const db = await openBenchDatabase();
  try {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const keys = (
      await admin.query<{ hash: string; keyId: number; accountId: number }>(
        `SELECT k.key_hash AS hash, k.id AS "keyId", k.account_id AS "accountId" FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE a.balance_cents > 100000 ORDER BY k.id LIMIT 2000`,
      )
    ).rows;
    await admin.end();
    if (keys.length === 0) throw new Error("the bench database has no funded keys: run `npm run bench` first");

    const times = new Map<Step, number[]>(STEPS.map((step) => [step, []]));
    const perLane = Math.ceil(transactions / parallel);
    const started = Date.now();
    await Promise.all(Array.from({ length: parallel }, (_, i) => lane(db.url, keys, perLane, i, times)));
    const seconds = (Date.now() - started) / 1000;

    const quantile = (values: number[], q: number) =>
      [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;
    console.log(
      `${perLane * parallel} order transactions on ${parallel} connection(s), ${named ? "named prepared" : "unnamed (as lib/ sends them)"} statements: ` +
        `${((perLane * parallel) / seconds).toFixed(0)}/s\n`,
    );
    console.log("step              median ms   p90 ms   share of the median total");
    const medians = STEPS.map((step) => quantile(times.get(step)!, 0.5));
    const total = medians.reduce((a, b) => a + b, 0);
    STEPS.forEach((step, i) => {
      const values = times.get(step)!;
      console.log(
        `${step.padEnd(16)} ${medians[i]!.toFixed(3).padStart(9)} ${quantile(values, 0.9).toFixed(3).padStart(8)}   ${((medians[i]! / total) * 100).toFixed(0).padStart(3)}%`,
      );
    });
    console.log(`${"sum of medians".padEnd(16)} ${total.toFixed(3).padStart(9)}`);
  } finally {
    await db.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
