// What the processes of the suite write: every process a test starts has its stdout and stderr kept
// in a file of .data/test-logs (emptied when a run starts), and the test files' own lines (lib/ code
// run in-process) go there too (tests/setup/per-file.ts). Tests read request lines from them, and
// the last file of every run scans them all for API keys and secrets (tests/reliability/no-secrets-in-logs.test.ts).
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";

export const TEST_LOG_DIR = path.join(projectRoot, ".data", "test-logs");

/** Empties the directory for a new run (tests/setup/global-setup.ts). */
export function resetTestLogs(): void {
  fs.rmSync(TEST_LOG_DIR, { recursive: true, force: true });
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
}

/**
 * Keeps `child`'s output (the streams it pipes, or those named) in `<name>-<pid>.log`; returns that
 * file's path. The bot console's stdout is its conversation (a key the bot shows included), not a log.
 */
export function keepOutput(
  name: string,
  child: ChildProcess,
  streams: ("stdout" | "stderr")[] = ["stdout", "stderr"],
): string {
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
  const file = path.join(TEST_LOG_DIR, `${name.replace(/[^A-Za-z0-9_.-]+/g, "-")}-${child.pid ?? "unknown"}.log`);
  const out = fs.createWriteStream(file, { flags: "a" });
  let open = 0;
  for (const stream of streams.map((which) => child[which])) {
    if (!stream) continue;
    open++;
    stream.on("data", (chunk: Buffer) => out.write(chunk));
    stream.once("close", () => {
      if (--open === 0) out.end();
    });
  }
  if (open === 0) out.end();
  return file;
}

/** Every log line kept so far, with the file it is in. */
export function readKeptLines(): { file: string; line: string }[] {
  if (!fs.existsSync(TEST_LOG_DIR)) return [];
  return fs.readdirSync(TEST_LOG_DIR).flatMap((name) =>
    fs
      .readFileSync(path.join(TEST_LOG_DIR, name), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => ({ file: name, line })),
  );
}

/** The JSON log lines (pino's) in a process's output; other lines (banners, a CLI's text) are left out. */
export function parseLogLines(output: string): Record<string, unknown>[] {
  return output.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** The JSON log lines of one kept file. */
export function jsonLogLines(file: string): Record<string, unknown>[] {
  return fs.existsSync(file) ? parseLogLines(fs.readFileSync(file, "utf8")) : [];
}

/** The `msg` of every JSON log line in `output` written by `processName` (web, worker, start ...), or by any. */
export function logMessages(output: string, processName?: string): string[] {
  return parseLogLines(output)
    .filter((entry) => typeof entry.msg === "string" && (processName === undefined || entry.process === processName))
    .map((entry) => entry.msg as string);
}
