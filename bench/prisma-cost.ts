// What Prisma Client costs against raw pg for one small read, the shape of the hot path's reads:
//   DATABASE_URL=... npx tsx bench/prisma-cost.ts
// One account's balance by primary key (accounts already in the database; run after the tests or
// the benchmark), three ways on the same pool: pg with a named prepared statement (what the hot
// path does), Prisma's $queryRaw, and Prisma's model API (findUnique). Sequential calls on one
// connection after a warm-up: p50 and p99 latency in ms, and Node CPU per call in µs.
import { closePool, getPool } from "../lib/db/pool";
import { disconnectPrisma, getPrisma } from "../lib/db/prisma";

const ITERATIONS = Number(process.env.PRISMA_BENCH_ITERATIONS || 5000);
const WARM_UP = 500;

async function time(label: string, call: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) await call(i);
  const samples: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) {
    const start = process.hrtime.bigint();
    await call(WARM_UP + i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const used = process.cpuUsage(cpu);
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3);
  console.log(`| ${label} | ${at(0.5)} | ${at(0.99)} | ${Math.round((used.user + used.system) / ITERATIONS)} |`);
}

const pool = getPool();
const ids = (await pool.query<{ id: number }>(`SELECT id FROM accounts ORDER BY id LIMIT 200`)).rows.map(
  (row) => row.id,
);
if (ids.length === 0) throw new Error("no accounts in this database: run the tests or the benchmark against it first");
const id = (i: number) => ids[i % ids.length];
const prisma = getPrisma();

console.log(`${ITERATIONS} sequential reads each (after ${WARM_UP} warm-up), ${ids.length} accounts\n`);
console.log("| read | p50 ms | p99 ms | Node CPU µs/read |\n|---|---|---|---|");
await time("pg, named prepared statement", (i) =>
  pool.query({ name: "bench-balance", text: `SELECT balance_cents FROM accounts WHERE id = $1`, values: [id(i)] }),
);
await time("Prisma $queryRaw", (i) => prisma.$queryRaw`SELECT balance_cents FROM accounts WHERE id = ${id(i)}`);
await time("Prisma findUnique", (i) =>
  prisma.account.findUnique({ where: { id: id(i) }, select: { balanceCents: true } }),
);
await disconnectPrisma();
await closePool();
