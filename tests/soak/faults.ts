// The planned faults, struck at their time and healed after their duration: a crash is a SIGKILL (or
// PostgreSQL's immediate shutdown) and the restart the same command on the same port, as a process
// supervisor would do it.
import type { SoakHistory } from "./history";
import type { PlannedFault } from "./plan";
import type { Topology } from "./topology";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes every connection PostgreSQL has left, so the service's pools cannot open any. */
async function hogConnections(topology: Topology): Promise<() => Promise<void>> {
  const pool = topology.pool(1);
  const { rows } = await pool.query<{ free: number }>(
    `SELECT current_setting('max_connections')::int - (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS free`,
  );
  await pool.end();
  const hog = topology.pool(Math.max(rows[0]!.free, 1));
  const clients = await Promise.all(Array.from({ length: rows[0]!.free }, () => hog.connect().catch(() => undefined)));
  return async () => {
    for (const client of clients) client?.release();
    await hog.end();
  };
}

export class FaultInjector {
  /** Web process i is down from `since` (ms of the run) until it answers again. */
  private webDown: { target: number; from: number; to: number }[] = [];

  constructor(
    private readonly topology: Topology,
    private readonly history: SoakHistory,
  ) {}

  webDownAt(t: number): boolean {
    // HAProxy notices a dead server within its health checks (300 ms, twice) and a live one again
    // likewise: its own answers are allowed for that long around the outage.
    return this.webDown.some((down) => t >= down.from - 100 && t <= down.to + 2000);
  }

  async strike(fault: PlannedFault): Promise<void> {
    const { topology, history } = this;
    const t = history.now();
    history.note(`FAULT ${fault.kind} (target ${fault.target}) for ${fault.durationMs} ms`);
    switch (fault.kind) {
      case "postgres-crash":
      case "postgres-fast-restart":
        await topology.crashPostgres();
        await sleep(fault.durationMs);
        await topology.startPostgres();
        break;
      case "redis-kill":
        await topology.redis.kill();
        await sleep(fault.durationMs);
        await topology.redis.start();
        break;
      case "worker-kill": {
        const worker = topology.workers[fault.target]!;
        await worker.kill();
        await sleep(fault.durationMs);
        await worker.start();
        break;
      }
      case "web-kill": {
        const web = topology.webs[fault.target]!;
        const down = { target: fault.target, from: t, to: Number.POSITIVE_INFINITY };
        this.webDown.push(down);
        await web.kill();
        await sleep(fault.durationMs);
        await web.start();
        down.to = history.now();
        break;
      }
      case "supplier-outage":
      case "supplier-slow":
      case "supplier-lost-answers": {
        const supplier = topology.suppliers[fault.target]!;
        const routes = ["place", "check", "verify", "redeem"] as const;
        for (const route of routes) {
          if (fault.kind === "supplier-outage") supplier.behave(route, { kind: "status", httpStatus: 503 });
          else if (fault.kind === "supplier-slow") supplier.behave(route, { kind: "delay", ms: 2500 });
          else if (route === "place" || route === "redeem") supplier.behave(route, { kind: "lose-answer" });
        }
        await sleep(fault.durationMs);
        for (const route of routes) supplier.behave(route, undefined);
        break;
      }
      case "receiver-down": {
        const receiver = topology.receivers[fault.target]!;
        receiver.defaultAnswer = { status: 503, body: "down" };
        await sleep(fault.durationMs);
        receiver.defaultAnswer = { status: 200, body: "ok" };
        break;
      }
      case "pool-full": {
        const release = await hogConnections(topology);
        await sleep(fault.durationMs);
        await release();
        break;
      }
    }
    history.note(`HEALED ${fault.kind} (target ${fault.target})`);
  }
}
