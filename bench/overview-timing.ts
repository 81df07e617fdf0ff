// Times the dashboard overview's lib calls (as app/admin/(console)/page.tsx makes them) against a
// database the scale bench grew, without re-running the bench: one connection pool, RUNS rounds.
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/<scale database> npx tsx bench/overview-timing.ts
// Its figures are upper bounds on a shared machine; bench/RESULTS.md records what it measured.
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import { disconnectPrisma } from "@/lib/db/prisma";

const RUNS = Number(process.env.RUNS ?? 5);

async function time(label: string, run: () => Promise<unknown>): Promise<void> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `${label}: median ${ms[Math.floor(ms.length / 2)].toFixed(0)} ms, max ${ms[ms.length - 1].toFixed(0)} ms (${ms.map((m) => m.toFixed(0)).join(", ")})`,
  );
}

async function main(): Promise<void> {
  await time("metrics 24h", () => readOrderMetrics("24h"));
  await time("metrics 7d", () => readOrderMetrics("7d"));
  await time("backlog", () => readOrderBacklog());
  await time("overview (24h + 7d + backlog in parallel, as the page)", () => {
    const now = new Date();
    return Promise.all([readOrderMetrics("24h", now), readOrderMetrics("7d", now), readOrderBacklog()]);
  });
  await disconnectPrisma();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
