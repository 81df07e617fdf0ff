// The API's switches as tests set them: written to the settings table, then waited for until the
// suite's server obeys. The server keeps the switches in memory for up to SETTINGS_CACHE_MS (a
// second), so a test that turns one off without waiting leaves the next test, or the next file,
// refused with a 503 for that second.
import { expect } from "vitest";
import { sql } from "./db";
import { newTrxid, order } from "./orders";

export type SwitchName = "MAINTENANCE" | "API_ORDER_DISABLED";

/** Turns one switch on, or every switch off ("none"), and waits until the server obeys. */
export async function setServerSwitch(name: SwitchName | "none", probeKey: string): Promise<void> {
  if (name === "none") await sql(`DELETE FROM settings WHERE key IN ('MAINTENANCE', 'API_ORDER_DISABLED')`);
  else
    await sql(`INSERT INTO settings (key, value) VALUES ($1, 'true') ON CONFLICT (key) DO UPDATE SET value = 'true'`, [
      name,
    ]);
  // The probe is a new order with an unknown pid, which only a switch can answer with a 503 and
  // which writes nothing either way.
  await expect
    .poll(async () => (await order(probeKey, { pid: "SVCNOPE", trxid: newTrxid("probe"), userId: "1" })).json.code, {
      timeout: 10_000,
    })
    .toBe(name === "none" ? "UNKNOWN_PID" : name);
}
