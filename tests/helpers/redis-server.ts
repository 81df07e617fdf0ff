// A Redis of the test's own: the machine's `redis-server` on a free port, keeping nothing on disk, so
// a test can kill it and start it again on the same port without touching anyone else's Redis.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { findFreePort } from "./processes";

/** Whether `redis-server` is on the PATH. */
export function hasRedisServer(): boolean {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export interface OwnRedis {
  url: string;
  /** SIGKILL, then waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved); resolves once it answers PING. */
  start(): Promise<void>;
}

/** Resolves once a Redis answers PING on the port; rejects after `timeoutMs`. */
async function untilAnswers(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.setTimeout(1000, () => socket.destroy());
      socket.once("connect", () => socket.write("PING\r\n"));
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("+PONG"));
      });
      socket.once("close", () => resolve(false));
      socket.once("error", () => undefined);
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`no Redis answered on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startOwnRedis(): Promise<OwnRedis & { stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-redis-"));
  const port = await findFreePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: "ignore" },
    );
    child = started;
    await untilAnswers(port);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise((resolve) => {
      running.once("exit", resolve);
      running.kill("SIGKILL");
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    stop: async () => {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
