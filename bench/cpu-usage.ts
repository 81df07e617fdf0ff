// Where the machine's CPU went during a measured run: the server under test, PostgreSQL (the
// bench database's backends and the server's background processes), Redis, the load generator
// (this process), and everything else. On two shared cores this says which side was the
// bottleneck, and whether someone else's work disturbed the run.
import fs from "node:fs";

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface Sample {
  comm: string;
  ticks: number;
  /** For a PostgreSQL backend: the database it serves (other people's databases share the server). */
  database?: string;
}

function backendDatabase(pid: string): string | undefined {
  try {
    const title = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    // "postgres: [<cluster>: ]<user> <database> <host>(<port>) <state>", or "... autovacuum worker <database>";
    // the server's own background processes (checkpointer, WAL writer ...) name no database.
    const backend = /^postgres: (?:\S+: )?\S+ (\S+) (?:[\d.:a-f]+\(\d+\)|\[local\])/.exec(title);
    return backend?.[1] ?? /autovacuum worker (\S+)/.exec(title)?.[1];
  } catch {
    return undefined;
  }
}

export interface CpuSnapshot {
  processes: Map<number, Sample>;
  /** Busy ticks of the whole machine (all cores), from /proc/stat. */
  machineBusyTicks: number;
}

function machineBusyTicks(): number {
  // cpu  user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal] = fields;
  return user + nice + system + irq + softirq + (steal ?? 0);
}

export function snapshotCpu(): CpuSnapshot {
  const processes = new Map<number, Sample>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const open = stat.indexOf("(");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      const comm = stat.slice(open + 1, close);
      const database = comm === "postgres" ? backendDatabase(entry) : undefined;
      processes.set(Number(entry), { comm, ticks: Number(fields[11]) + Number(fields[12]), database });
    } catch {
      // The process ended between readdir and read.
    }
  }
  return { processes, machineBusyTicks: machineBusyTicks() };
}

export interface CpuBreakdown {
  /** CPU ms per category over the interval. */
  serverMs: number;
  postgresMs: number;
  loadGeneratorMs: number;
  /** redis-server (the rate limiter's store; shared with anyone else using it). */
  redisMs: number;
  /** The machine's busy time minus the above: other people's work, the kernel. */
  otherMs: number;
}

function sampleMs(start: Sample | undefined, end: Sample): number {
  // A process that started during the interval counts from zero; pid reuse is negligible here.
  return ((end.ticks - (start && start.comm === end.comm ? start.ticks : 0)) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU ms of one process over the interval (0 when it was not running at the end). */
export function processMs(before: CpuSnapshot, after: CpuSnapshot, pid: number): number {
  const end = after.processes.get(pid);
  return end ? Math.max(0, sampleMs(before.processes.get(pid), end)) : 0;
}

/** `database`: the bench's database; backends of other databases count as "other". */
export function diffCpu(before: CpuSnapshot, after: CpuSnapshot, serverPid: number, database: string): CpuBreakdown {
  const result: CpuBreakdown = { serverMs: 0, postgresMs: 0, loadGeneratorMs: 0, redisMs: 0, otherMs: 0 };
  for (const [pid, end] of after.processes) {
    const ms = sampleMs(before.processes.get(pid), end);
    if (ms <= 0) continue;
    if (pid === serverPid) result.serverMs += ms;
    else if (pid === process.pid) result.loadGeneratorMs += ms;
    else if (end.comm === "postgres" && (end.database === undefined || end.database === database))
      result.postgresMs += ms;
    else if (end.comm === "redis-server") result.redisMs += ms;
  }
  // Per-process and machine-wide tick counts are sampled separately: the difference is clamped.
  const machineMs = ((after.machineBusyTicks - before.machineBusyTicks) * 1000) / CLOCK_TICKS_PER_SECOND;
  result.otherMs = Math.max(
    0,
    machineMs - result.serverMs - result.postgresMs - result.loadGeneratorMs - result.redisMs,
  );
  return result;
}
