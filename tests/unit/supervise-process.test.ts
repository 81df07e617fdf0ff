// The supervisor npm start runs its children under, over real processes: a killed child comes
// back, one that keeps crashing is given up on with a message, and stop() means stop.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DEPENDENCY_DOWN_EXIT_CODE, superviseProcess } from "@/lib/process/supervise-process";

const forever = () => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
const crashing = () => spawn(process.execPath, ["-e", "process.exit(3)"], { stdio: "ignore" });

async function until<T>(probe: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("superviseProcess", () => {
  it("restarts a child killed with SIGKILL, logs it, and stop() ends it for good", async () => {
    const lines: string[] = [];
    const supervisor = superviseProcess({
      name: "worker",
      start: forever,
      log: (line) => lines.push(line),
      onGiveUp: (reason) => lines.push(`gave up: ${reason}`),
      initialBackoffMs: 20,
    });
    const first = await until(() => supervisor.current()?.pid);
    process.kill(first, "SIGKILL");
    const second = await until(() => supervisor.current()?.pid !== first && supervisor.current()?.pid);
    expect(second).not.toBe(first);
    expect(lines).toEqual(["worker stopped unexpectedly (killed by SIGKILL); restarting it in 0.0 s"]);
    expect(supervisor.restarts()).toBe(1);

    const last = supervisor.current()!;
    await supervisor.stop();
    expect(last.signalCode).toBe("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(supervisor.current()).toBeUndefined();
    expect(supervisor.restarts()).toBe(1);
  });

  it("gives up on a child that crashes again and again, saying which and how", async () => {
    const lines: string[] = [];
    let gaveUp = "";
    superviseProcess({
      name: "bot",
      start: crashing,
      log: (line) => lines.push(line),
      onGiveUp: (reason) => (gaveUp = reason),
      initialBackoffMs: 10,
      maxCrashes: 3,
      windowMs: 60_000,
    });
    await until(() => gaveUp);
    expect(gaveUp).toBe("bot crashed 3 times within 60 s (last: exit code 3); not restarting it");
    expect(lines).toHaveLength(2); // two restarts, each logged with its growing backoff
    expect(lines[1]).toContain("restarting it in 0.0 s");
  });

  it("never gives up on a child that exits because a dependency is down", async () => {
    const lines: string[] = [];
    let gaveUp = "";
    let starts = 0;
    const supervisor = superviseProcess({
      name: "worker",
      start: () => {
        starts++;
        return spawn(process.execPath, ["-e", `process.exit(${DEPENDENCY_DOWN_EXIT_CODE})`], { stdio: "ignore" });
      },
      log: (line) => lines.push(line),
      onGiveUp: (reason) => (gaveUp = reason),
      initialBackoffMs: 5,
      maxBackoffMs: 20,
      maxCrashes: 3,
      windowMs: 60_000,
    });
    await until(() => starts >= 8);
    await supervisor.stop();
    expect(gaveUp).toBe("");
    expect(lines[0]).toBe(
      `worker cannot reach a dependency (exit code ${DEPENDENCY_DOWN_EXIT_CODE}); restarting it in 0.0 s`,
    );
  });
});
