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
