// Runtime settings on the real database: switches and the eligibility rule are written with their
// audit row in one transaction, read back with who and when, and obeyed by every instance within 2 s.
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { closePool } from "@/lib/db/pool";
import { createSettingsReader, getRuntimeSettings, isAccountEligible } from "@/lib/settings/sql/get-runtime-settings";
import { readEligibilityRuleState, readSwitchStates } from "@/lib/settings/read-switch-states";
import { setEligibilityRule, setSwitch } from "@/lib/settings/set-switch";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { suiteDatabaseUrl } from "../helpers/suite";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Extra pools made by tests (a healthy one and a broken one), ended after the file. */
const readers: pg.Pool[] = [];

beforeAll(resetDatabase);
beforeEach(async () => {
  await sql(`TRUNCATE settings, audit_log RESTART IDENTITY CASCADE`);
});
afterAll(async () => {
  await Promise.all(readers.map((pool) => pool.end()));
  await closePool();
  await closeSql();
});

describe("setSwitch and readSwitchStates", () => {
  it("stores a switch, reads it back with who and when, and this instance obeys at once", async () => {
    expect(await readSwitchStates()).toEqual({
      MAINTENANCE: { value: false, updatedBy: null, updatedAt: null },
      API_ORDER_DISABLED: { value: false, updatedBy: null, updatedAt: null },
    });
    expect((await getRuntimeSettings()).maintenance).toBe(false); // now cached here

    const change = await setSwitch("MAINTENANCE", true, "admin:ops@example.com");
    expect(change).toEqual({
      value: true,
      previous: null,
      updatedBy: "admin:ops@example.com",
      updatedAt: expect.any(Date),
    });

    const states = await readSwitchStates();
    expect(states.MAINTENANCE).toEqual({
      value: true,
      updatedBy: "admin:ops@example.com",
      updatedAt: change.updatedAt,
    });
    expect(states.API_ORDER_DISABLED.value).toBe(false);
    expect(await getRuntimeSettings()).toEqual({
      maintenance: true,
      apiOrderDisabled: false,
      eligibility: { enabled: false },
    });
  });

  it("writes one setting.set audit row per change, with the actor and from/to", async () => {
    await setSwitch("API_ORDER_DISABLED", true, "telegram:4242");
    const off = await setSwitch("API_ORDER_DISABLED", false, "admin:ops@example.com");
    expect(off.previous).toBe(true);
    expect(await sql(`SELECT actor, action, target_type, target_id, details FROM audit_log ORDER BY id`)).toEqual([
      {
        actor: "telegram:4242",
        action: "setting.set",
        target_type: "setting",
        target_id: "API_ORDER_DISABLED",
        details: { from: null, to: true },
      },
      {
        actor: "admin:ops@example.com",
        action: "setting.set",
        target_type: "setting",
        target_id: "API_ORDER_DISABLED",
        details: { from: true, to: false },
      },
    ]);
    const row = await sqlRow(`SELECT value, updated_by FROM settings WHERE key = 'API_ORDER_DISABLED'`);
    expect(row).toEqual({ value: false, updated_by: "admin:ops@example.com" });
  });

  it("changes nothing when the audit row cannot be written (one transaction)", async () => {
    await setSwitch("MAINTENANCE", false, "system");
    await expect(setSwitch("MAINTENANCE", true, null as unknown as string)).rejects.toThrow(/actor/);
    expect((await readSwitchStates()).MAINTENANCE).toMatchObject({ value: false, updatedBy: "system" });
    expect(await sql(`SELECT count(*)::int AS n FROM audit_log`)).toEqual([{ n: 1 }]);
  });
});

describe("getRuntimeSettings across instances", () => {
  it("a change made by one instance is obeyed by another that had cached the old value, within 2 s", async () => {
    const other = createSettingsReader(); // a second instance's cache
    expect((await other.getRuntimeSettings()).apiOrderDisabled).toBe(false);

    const changedAt = Date.now();
    await setSwitch("API_ORDER_DISABLED", true, "admin:ops@example.com");
    expect((await createSettingsReader().getRuntimeSettings()).apiOrderDisabled).toBe(true); // a fresh instance: at once
    while (!(await other.getRuntimeSettings()).apiOrderDisabled) {
      expect(Date.now() - changedAt).toBeLessThan(2000);
      await sleep(50);
    }
  });

  it("serves what it read for the cache period, then what is stored; clear() reads afresh at once", async () => {
    const reader = createSettingsReader({ cacheMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 10 }, () => reader.getRuntimeSettings()));
    expect(results.map((r) => r.maintenance)).toEqual(Array(10).fill(false));
    await setSwitch("MAINTENANCE", true, "admin:ops@example.com");
    // Within the period this instance still answers from what it read (another instance's change
    // reaches it when the period ends: the case above).
    expect((await reader.getRuntimeSettings()).maintenance).toBe(false);
    reader.clear();
    expect((await reader.getRuntimeSettings()).maintenance).toBe(true);
  });

  it("keeps serving the last value while the database fails, but not beyond the staleness limit", async () => {
    const healthy = new pg.Pool({ connectionString: suiteDatabaseUrl(), max: 1 });
    const broken = new pg.Pool({
      connectionString: "postgresql://postgres@127.0.0.1:1/none",
      connectionTimeoutMillis: 500,
    });
    readers.push(healthy, broken);
    let pool = healthy;
    const reader = createSettingsReader({ pool: () => pool, cacheMs: 50, maxStaleMs: 400 });

    await setSwitch("MAINTENANCE", true, "system");
    expect((await reader.getRuntimeSettings()).maintenance).toBe(true);
    pool = broken;
    await sleep(60);
    expect((await reader.getRuntimeSettings()).maintenance).toBe(true); // stale, logged
    await sleep(450);
    await expect(reader.getRuntimeSettings()).rejects.toThrow(/ECONNREFUSED|connect/);
    pool = healthy;
    expect((await reader.getRuntimeSettings()).maintenance).toBe(true);
  });
});

describe("API_ELIGIBILITY", () => {
  it("stores a valid rule, audits it, and every reader gets it", async () => {
    const rule = { enabled: true, minTotalCreditedCents: 5000, minAccountAgeHours: 24 };
    const change = await setEligibilityRule(rule, "admin:ops@example.com");
    expect(change).toMatchObject({ value: rule, previous: null, updatedBy: "admin:ops@example.com" });
    expect((await createSettingsReader().getRuntimeSettings()).eligibility).toEqual(rule);
    expect(await readEligibilityRuleState()).toEqual({
      value: rule,
      updatedBy: "admin:ops@example.com",
      updatedAt: change.updatedAt,
    });
    const audit = await sqlRow(`SELECT target_id, details FROM audit_log`);
    expect(audit).toEqual({ target_id: "API_ELIGIBILITY", details: { from: null, to: rule } });
  });

  it("rejects an invalid rule with a ZodError and writes nothing", async () => {
    const invalid = [
      { enabled: "yes" },
      { enabled: true, minTotalCreditedCents: -1 },
      { enabled: true, minTotalCreditedCents: 10.5 },
      { enabled: true, minAccountAgeHours: Number.NaN },
      { enabled: true, minBalance: 100 },
      {},
    ];
    for (const rule of invalid) {
      await expect(setEligibilityRule(rule as never, "admin:ops@example.com")).rejects.toBeInstanceOf(ZodError);
    }
    expect(await sql(`SELECT count(*)::int AS n FROM settings`)).toEqual([{ n: 0 }]);
    expect(await sql(`SELECT count(*)::int AS n FROM audit_log`)).toEqual([{ n: 0 }]);
  });

  it("is read as disabled when absent", async () => {
    expect((await createSettingsReader().getRuntimeSettings()).eligibility).toEqual({ enabled: false });
  });
});

describe("isAccountEligible", () => {
  const now = Date.parse("2026-11-20T12:00:00Z");
  const account = { createdAt: new Date(now - 48 * 3_600_000), totalCreditedCents: 10_000 };

  it("admits everyone when the rule is absent or disabled", () => {
    expect(isAccountEligible(undefined, { createdAt: new Date(now), totalCreditedCents: 0 }, now)).toBe(true);
    expect(
      isAccountEligible(
        { enabled: false, minTotalCreditedCents: 1 },
        { createdAt: new Date(now), totalCreditedCents: 0 },
        now,
      ),
    ).toBe(true);
  });

  it("requires every stated minimum when enabled", () => {
    expect(isAccountEligible({ enabled: true }, account, now)).toBe(true);
    expect(
      isAccountEligible({ enabled: true, minTotalCreditedCents: 10_000, minAccountAgeHours: 48 }, account, now),
    ).toBe(true);
    expect(isAccountEligible({ enabled: true, minTotalCreditedCents: 10_001 }, account, now)).toBe(false);
    expect(isAccountEligible({ enabled: true, minAccountAgeHours: 48.5 }, account, now)).toBe(false);
  });
});
