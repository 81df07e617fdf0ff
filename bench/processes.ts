// The processes under test, each started the way production starts it (`node --import tsx <entry>`),
// plus their resident memory, sampled from /proc (CPU time is in cpu-usage.ts).
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";

export interface BenchProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  /** The listening port, for HTTP servers. */
  port?: number;
  /** Highest RSS seen by the 200 ms sampler, in KiB. */
  peakRssKiB: number;
  /** Output lines that say error, fail or warn (printed by the bench as they come): evidence a figure may be off. */
  readonly problemLines: number;
  stop(): Promise<void>;
}

const running = new Set<BenchProcess>();

function readStatus(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
}

function statusKiB(status: string | undefined, field: "VmRSS" | "VmHWM"): number {
  const match = status && new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  return match ? Number(match[1]) : 0;
}

/** The kernel's own high-water mark of the process's RSS (covers spikes between samples). */
function highWaterRssKiB(pid: number): number {
  return statusKiB(readStatus(pid), "VmHWM");
}

// One sampler for every process: cheap (a /proc read each), and it sees short peaks VmHWM also sees.
const sampler = setInterval(() => {
  for (const proc of running) proc.peakRssKiB = Math.max(proc.peakRssKiB, statusKiB(readStatus(proc.pid), "VmRSS"));
}, 200);
sampler.unref();

export async function startProcess(options: {
  name: string;
  entry: string;
  env: Record<string, string | undefined>;
  /** Extra node flags after `--import tsx`. */
  nodeArgs?: string[];
  /** HTTP servers report {type:"listening", port} over IPC; others print a ready line. */
  readyLine?: RegExp;
  log: (line: string) => void;
}): Promise<BenchProcess> {
  const child = fork(path.join(projectRoot, options.entry), [], {
    cwd: projectRoot,
    env: { ...process.env, ...options.env },
    execArgv: ["--import", "tsx", ...(options.nodeArgs ?? [])],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const lines: string[] = [];
  let problemLines = 0;
  const onOutput = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 50) lines.shift();
      // The services' own error lines are part of the evidence; routine lines are not printed.
      if (/error|fail|warn/i.test(line)) {
        problemLines++;
        options.log(`[${options.name}] ${line}`);
      }
    }
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);

  const port = await new Promise<number | undefined>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name} did not become ready in 60 s:\n${lines.join("\n")}`)),
      60_000,
    );
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code} before it was ready:\n${lines.join("\n")}`));
    });
    child.on("message", (message: { type?: string; port?: number }) => {
      if (message?.type === "listening" && message.port) {
        clearTimeout(timer);
        resolve(message.port);
      }
    });
    if (options.readyLine) {
      const pattern = options.readyLine;
      child.stdout?.on("data", (chunk: Buffer) => {
        if (pattern.test(chunk.toString("utf8"))) {
          clearTimeout(timer);
          resolve(undefined);
        }
      });
    }
  });
  child.removeAllListeners("exit");

  const proc: BenchProcess = {
    name: options.name,
    child,
    pid: child.pid!,
    port,
    peakRssKiB: 0,
    get problemLines() {
      return problemLines;
    },
    async stop() {
      if (!running.delete(proc)) return;
      proc.peakRssKiB = Math.max(proc.peakRssKiB, highWaterRssKiB(proc.pid));
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      // A process that ignores SIGTERM for 10 s is killed: the bench must always end by itself.
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(proc);
  return proc;
}

/** Stops everything still running (on any exit path of the bench). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((proc) => proc.stop()));
}

/** Last resort on a hard exit: no child outlives the bench. */
process.on("exit", () => {
  for (const proc of running) proc.child.kill("SIGKILL");
});

/**
 * Runs a bench's main to its end, for every bench entry point alike: exit 0 when it finishes, 1 when
 * it throws, 130 on Ctrl-C or SIGTERM, and whatever it started stopped on each of those paths.
 */
export function runBench(
  options: { tag: string; title: string; log: (line: string) => void },
  main: () => Promise<void>,
): void {
  let interrupted = false;
  const interrupt = () => {
    if (interrupted) return;
    interrupted = true;
    options.log(`interrupted: stopping everything the ${options.title} started`);
    void stopAll().finally(() => process.exit(130));
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);

  main().then(
    () => process.exit(0),
    async (error: unknown) => {
      console.error(`[${options.tag}] failed:`, error instanceof Error ? (error.stack ?? error.message) : error);
      await stopAll();
      process.exit(1);
    },
  );
}
