// Records the SQL a process sends, so the scale bench can EXPLAIN exactly what the service runs
// (whatever lib/ looks like at the time) instead of a hand-copied version of it.
//
// Loaded two ways:
//   - into the service under test: `node --import tsx --import ./bench/scale-capture.ts scripts/serve.ts`.
//     The bench sends {type:"scale-capture", on:true}, makes one request, sends {on:false}, and gets
//     back {type:"scale-captured", statements} over the fork's IPC channel;
//   - into the bench process itself (import { startCapture, stopCapture }), around the dashboard's
//     lib functions, which the bench calls directly.
// Off, the patch costs one boolean test per query.
import pg from "pg";

export interface CapturedStatement {
  /** The prepared statement's name, when the caller named it (the server may then use a generic plan). */
  name?: string;
  text: string;
  values: unknown[];
}

let capturing = false;
let captured: CapturedStatement[] = [];

type QueryArgs = [unknown, unknown?, unknown?];
const original = pg.Client.prototype.query as unknown as (this: pg.Client, ...args: QueryArgs) => unknown;

function record(config: unknown, values: unknown): void {
  if (typeof config === "string") {
    captured.push({ text: config, values: Array.isArray(values) ? values : [] });
  } else if (config && typeof config === "object" && typeof (config as { text?: unknown }).text === "string") {
    const c = config as { text: string; name?: string; values?: unknown[] };
    captured.push({
      text: c.text,
      name: c.name,
      values: Array.isArray(c.values) ? c.values : Array.isArray(values) ? values : [],
    });
  }
}

(pg.Client.prototype as unknown as { query: (...args: QueryArgs) => unknown }).query = function (
  this: pg.Client,
  ...args: QueryArgs
) {
  if (capturing) record(args[0], args[1]);
  return original.apply(this, args);
};

export function startCapture(): void {
  captured = [];
  capturing = true;
}

export function stopCapture(): CapturedStatement[] {
  capturing = false;
  const out = captured;
  captured = [];
  return out.map((s) => ({ ...s, values: s.values.map(serialisable) }));
}

/** Values as they cross IPC and reach EXPLAIN: dates as ISO text, bigints as decimal text. */
function serialisable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  if (Array.isArray(value)) return value.map(serialisable);
  return value;
}

if (process.send) {
  process.on("message", (message: { type?: string; on?: boolean }) => {
    if (message?.type !== "scale-capture") return;
    if (message.on) {
      startCapture();
      process.send!({ type: "scale-capture-ready" });
    } else {
      process.send!({ type: "scale-captured", statements: stopCapture() });
    }
  });
}
