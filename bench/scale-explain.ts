// EXPLAIN (ANALYZE, BUFFERS) of captured statements (scale-capture.ts), each inside a transaction
// that is rolled back, so a statement that writes or locks leaves nothing behind. A statement the
// service sends as a named prepared statement may run on PostgreSQL's generic plan after five
// executions, so those are explained twice: with their values (custom plan) and generic.
import pg from "pg";
import type { CapturedStatement } from "./scale-capture";

export interface PlanRecord {
  planText: string;
  executionMs: number;
  /** Shared buffers (hit + read) of the top node: how much the statement touched. */
  buffers: number;
  /** "Seq Scan on orders" and the like: a whole-table read of a big table. */
  bigTableSeqScans: string[];
  error?: string;
}

export interface ExplainedStatement {
  operation: string;
  name?: string;
  text: string;
  values: unknown[];
  custom: PlanRecord;
  generic?: PlanRecord;
}

const BIG_TABLES = ["orders", "ledger_entries"];

/** A parameter as the text pg would send: arrays as '{...}' literals, objects as JSON. */
function parameterText(value: unknown): string {
  if (Array.isArray(value)) {
    return `{${value.map((v) => (v === null || v === undefined ? "NULL" : `"${parameterText(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)).join(",")}}`;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  return client.escapeLiteral(parameterText(value));
}

function parsePlan(rows: { "QUERY PLAN": string }[]): Omit<PlanRecord, "error"> {
  const lines = rows.map((r) => r["QUERY PLAN"]);
  const planText = lines.join("\n");
  const execution = /Execution Time: ([\d.]+) ms/.exec(planText);
  const firstBuffers = lines.find((line) => /Buffers: shared/.test(line));
  const hit = firstBuffers ? Number(/hit=(\d+)/.exec(firstBuffers)?.[1] ?? 0) : 0;
  const read = firstBuffers ? Number(/read=(\d+)/.exec(firstBuffers)?.[1] ?? 0) : 0;
  const scans = lines
    .map((line) => /(?:Parallel )?Seq Scan on (\w+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && BIG_TABLES.includes(m[1]!))
    .map((m) => m[0]);
  return {
    planText,
    executionMs: execution ? Number(execution[1]) : NaN,
    buffers: hit + read,
    bigTableSeqScans: [...new Set(scans)],
  };
}

let counter = 0;

async function explainOne(
  client: pg.Client,
  statement: CapturedStatement,
  mode: "force_custom_plan" | "force_generic_plan",
): Promise<PlanRecord> {
  const name = `scale_explain_${++counter}`;
  try {
    await client.query("BEGIN");
    await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
    await client.query(`PREPARE ${name} AS ${statement.text}`);
    const args = statement.values.length ? `(${statement.values.map((v) => literal(client, v)).join(", ")})` : "";
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${name}${args}`);
    return parsePlan(rows);
  } catch (error) {
    return {
      planText: "",
      executionMs: NaN,
      buffers: 0,
      bigTableSeqScans: [],
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    await client.query(`DEALLOCATE ${name}`).catch(() => undefined);
  }
}

/** Only statements that read or write rows (not BEGIN, COMMIT, SET ...), each text once per operation. */
function hotStatements(statements: CapturedStatement[]): CapturedStatement[] {
  const seen = new Set<string>();
  return statements.filter((s) => {
    if (!/^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i.test(s.text)) return false;
    if (seen.has(s.text)) return false;
    seen.add(s.text);
    return true;
  });
}

/**
 * A connection of its own (EXPLAIN settings stay off the pools). On a server shared with other
 * benches the connection slots can run out for a while: waits for one, up to a minute.
 */
async function connect(url: string): Promise<pg.Client> {
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (!/too many clients/.test(String(error)) || attempt >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

export async function explainStatements(
  url: string,
  operation: string,
  statements: CapturedStatement[],
): Promise<ExplainedStatement[]> {
  const client = await connect(url);
  try {
    const out: ExplainedStatement[] = [];
    for (const statement of hotStatements(statements)) {
      const custom = await explainOne(client, statement, "force_custom_plan");
      const generic =
        statement.name && statement.values.length
          ? await explainOne(client, statement, "force_generic_plan")
          : undefined;
      out.push({ operation, name: statement.name, text: statement.text, values: statement.values, custom, generic });
    }
    return out;
  } finally {
    await client.end();
  }
}
