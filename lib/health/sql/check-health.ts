import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../../config/env";
import { getPool } from "../../db/pool";

export const serviceVersion: string = JSON.parse(
  fs.readFileSync(path.join(projectRoot, "package.json"), "utf8"),
).version;

/** Asks the database one trivial question, bounded in time, so a hung database reads as down. */
export async function checkHealth(timeoutMs = 2000): Promise<{ ok: boolean; db: "up" | "down"; version: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("database health check timed out")), timeoutMs);
  });
  try {
    await Promise.race([getPool().query("select 1"), timeout]);
    return { ok: true, db: "up", version: serviceVersion };
  } catch {
    return { ok: false, db: "down", version: serviceVersion };
  } finally {
    clearTimeout(timer);
  }
}
