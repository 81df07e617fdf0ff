// Finding the processes a test started, by an environment value only they carry.
import fs from "node:fs";
import net from "node:net";

/** Pids of live processes whose environment contains `NAME=value` exactly. */
export function processesWithEnv(name: string, value: string): number[] {
  const wanted = Buffer.from(`${name}=${value}\0`);
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`);
      if (environ.includes(wanted)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** A port nobody listens on right now: the kernel's pick for port 0, read back and released. */
export async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether a process of this pid still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes carrying `NAME=value` whose command line names `script`. */
export function processesRunning(script: string, name: string, value: string): number[] {
  return processesWithEnv(name, value).filter((pid) => {
    try {
      return fs
        .readFileSync(`/proc/${pid}/cmdline`, "utf8")
        .split("\0")
        .some((arg) => arg.endsWith(script));
    } catch {
      return false;
    }
  });
}
