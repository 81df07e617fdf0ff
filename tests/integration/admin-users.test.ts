// Managing dashboard admins and their two-factor, through lib/admin-users on the real database:
// inviting, changing roles, disabling, the last-owner guard (also under a race), the TOTP set-up and
// its replay guard, turning two-factor off, and the audit rows of each change.
import { describe, expect, it } from "vitest";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { inviteAdminUser } from "@/lib/admin-users/invite-admin-user";
import { setAdminRole } from "@/lib/admin-users/set-admin-role";
import { setAdminDisabled } from "@/lib/admin-users/set-admin-disabled";
import { resetAdminTwoFactor } from "@/lib/admin-users/reset-admin-two-factor";
import { verifyAdminPassword } from "@/lib/admin-users/verify-admin-password";
import { findActiveAdmin } from "@/lib/admin-users/find-active-admin";
import { startTwoFactorSetup } from "@/lib/admin-users/start-two-factor-setup";
import { readTwoFactorSetup } from "@/lib/admin-users/read-two-factor-setup";
import { confirmTwoFactorSetup } from "@/lib/admin-users/confirm-two-factor-setup";
import { checkSecondFactor } from "@/lib/admin-users/check-second-factor";
import { turnOffTwoFactor } from "@/lib/admin-users/turn-off-two-factor";
import { listAdminUsers } from "@/lib/admin-users/list-admin-users";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql, sqlRow } from "../helpers/db";
import { enableTwoFactor, freshTotpCode, totpCodeAt } from "../helpers/two-factor";

useCleanDatabase({ catalog: false });

const PASSWORD = "a long enough test password";

async function newAdmin(email: string, role: "viewer" | "operator" | "owner") {
  const created = await createAdminUser({ email, password: PASSWORD, role, actor: "test" });
  if (created.status !== "created") throw new Error(created.status);
  return created.admin;
}

async function auditOf(action: string) {
  return sql(`SELECT actor, target_id, details FROM audit_log WHERE action = $1 ORDER BY id`, [action]);
}

describe("managing admins", () => {
  it("invites an admin with a role and a generated password that signs in", async () => {
    const invited = await inviteAdminUser({
      email: " New@Example.com",
      role: "operator",
      actor: "admin:boss@example.com",
    });
    expect(invited).toMatchObject({ status: "created", admin: { email: "new@example.com", role: "operator" } });
    if (invited.status !== "created") throw new Error(invited.status);
    expect(invited.password).toMatch(/^[A-Za-z2-9]{24}$/);
    expect(await verifyAdminPassword("new@example.com", invited.password)).toMatchObject({ role: "operator" });
    expect(await inviteAdminUser({ email: "new@example.com", role: "owner", actor: "admin:boss@example.com" })).toEqual(
      {
        status: "exists",
      },
    );
    expect(await auditOf("admin_user.create")).toEqual([
      {
        actor: "admin:boss@example.com",
        target_id: String(invited.admin.id),
        details: { email: "new@example.com", role: "operator" },
      },
    ]);
  });

  it("changes roles, keeps the last active owner, and refuses disabling yourself", async () => {
    const owner = await newAdmin("owner-a@example.com", "owner");
    const viewer = await newAdmin("viewer-a@example.com", "viewer");
    expect(await setAdminRole({ adminId: viewer.id, role: "operator", actor: "admin:owner-a@example.com" })).toEqual({
      status: "changed",
      email: "viewer-a@example.com",
      from: "viewer",
      to: "operator",
    });
    expect(await setAdminRole({ adminId: viewer.id, role: "operator", actor: "admin:owner-a@example.com" })).toEqual({
      status: "unchanged",
      email: "viewer-a@example.com",
    });
    // The only owner can neither be demoted nor disabled, and nobody disables themselves.
    expect(await setAdminRole({ adminId: owner.id, role: "viewer", actor: "admin:owner-a@example.com" })).toMatchObject(
      {
        status: "last_owner",
      },
    );
    expect(
      await setAdminDisabled({ adminId: owner.id, disabled: true, byAdminId: viewer.id, actor: "admin:x@example.com" }),
    ).toMatchObject({ status: "last_owner" });
    expect(
      await setAdminDisabled({
        adminId: owner.id,
        disabled: true,
        byAdminId: owner.id,
        actor: "admin:owner-a@example.com",
      }),
    ).toEqual({ status: "self" });
    expect(await setAdminRole({ adminId: 999_999, role: "viewer", actor: "admin:owner-a@example.com" })).toEqual({
      status: "not_found",
    });
    expect(await sqlRow(`SELECT role, disabled FROM admin_users WHERE id = $1`, [owner.id])).toEqual({
      role: "owner",
      disabled: false,
    });
    expect(await auditOf("admin_user.role")).toEqual([
      {
        actor: "admin:owner-a@example.com",
        target_id: String(viewer.id),
        details: { email: "viewer-a@example.com", from: "viewer", to: "operator" },
      },
    ]);
  });

  it("disables an admin (their session lookups end at once) and enables them again, audited", async () => {
    const owner = await newAdmin("owner-b@example.com", "owner");
    const operator = await newAdmin("operator-b@example.com", "operator");
    expect(await findActiveAdmin("operator-b@example.com")).toBeDefined();
    expect(
      await setAdminDisabled({
        adminId: operator.id,
        disabled: true,
        byAdminId: owner.id,
        actor: "admin:owner-b@example.com",
      }),
    ).toEqual({ status: "changed", email: "operator-b@example.com" });
    expect(await findActiveAdmin("operator-b@example.com")).toBeUndefined();
    expect(await verifyAdminPassword("operator-b@example.com", PASSWORD)).toBeUndefined();
    expect(
      await setAdminDisabled({
        adminId: operator.id,
        disabled: false,
        byAdminId: owner.id,
        actor: "admin:owner-b@example.com",
      }),
    ).toEqual({ status: "changed", email: "operator-b@example.com" });
    expect(await findActiveAdmin("operator-b@example.com")).toBeDefined();
    expect(
      await sql(
        `SELECT action, details FROM audit_log WHERE target_id = $1 AND action LIKE 'admin_user.%able' ORDER BY id`,
        [String(operator.id)],
      ),
    ).toEqual([
      { action: "admin_user.disable", details: { email: "operator-b@example.com", role: "operator" } },
      { action: "admin_user.enable", details: { email: "operator-b@example.com", role: "operator" } },
    ]);
  });

  it("leaves one active owner when two owners demote each other at once", async () => {
    // Start from two active owners only.
    await sql(`UPDATE admin_users SET role = 'viewer' WHERE role = 'owner'`);
    const a = await newAdmin("race-a@example.com", "owner");
    const b = await newAdmin("race-b@example.com", "owner");
    const results = await Promise.all([
      setAdminRole({ adminId: b.id, role: "operator", actor: "admin:race-a@example.com" }),
      setAdminRole({ adminId: a.id, role: "operator", actor: "admin:race-b@example.com" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["changed", "last_owner"]);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM admin_users WHERE role = 'owner' AND NOT disabled`)).n).toBe(
      1,
    );
    expect((await listAdminUsers()).filter((admin) => admin.role === "owner")).toHaveLength(1);
  });
});

describe("two-factor", () => {
  it("turns on only with a code from the set-up's secret, sealed at rest, with ten hashed recovery codes", async () => {
    const admin = await newAdmin("tf-a@example.com", "owner");
    expect(await confirmTwoFactorSetup({ adminId: admin.id, code: "123456", actor: "admin:tf-a@example.com" })).toEqual(
      {
        status: "no_setup",
      },
    );
    expect(await startTwoFactorSetup(admin.id)).toEqual({ status: "started" });
    const setup = (await readTwoFactorSetup(admin.id))!;
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.uri).toMatch(/^otpauth:\/\/totp\/.*secret=[A-Z2-7]{32}/);
    expect(setup.uri).toContain("tf-a%40example.com");
    const step = Math.floor(Date.now() / 30_000);
    const wrong = ["000000", "111111", "222222"].find(
      (code) => ![-1, 0, 1].some((d) => totpCodeAt(setup.secret, step + d) === code),
    )!;
    expect(await confirmTwoFactorSetup({ adminId: admin.id, code: wrong, actor: "admin:tf-a@example.com" })).toEqual({
      status: "wrong_code",
    });
    expect((await findActiveAdmin("tf-a@example.com"))!.totpEnabledAt).toBeNull();

    const code = await freshTotpCode("tf-a@example.com", setup.secret);
    const confirmed = await confirmTwoFactorSetup({ adminId: admin.id, code, actor: "admin:tf-a@example.com" });
    expect(confirmed.status).toBe("enabled");
    if (confirmed.status !== "enabled") throw new Error(confirmed.status);
    expect(confirmed.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.recoveryCodes).size).toBe(10);
    for (const recovery of confirmed.recoveryCodes) expect(recovery).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);

    const row = await sqlRow(
      `SELECT totp_secret, totp_pending_secret, totp_enabled_at FROM admin_users WHERE id = $1`,
      [admin.id],
    );
    expect(row.totp_pending_secret).toBeNull();
    expect(row.totp_enabled_at).not.toBeNull();
    expect(row.totp_secret).toMatch(/^v1:/);
    expect(row.totp_secret).not.toContain(setup.secret);
    const hashes = await sql<{ code_hash: string }>(
      `SELECT code_hash FROM admin_recovery_codes WHERE admin_user_id = $1`,
      [admin.id],
    );
    expect(hashes).toHaveLength(10);
    for (const { code_hash } of hashes) expect(code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await auditOf("admin_user.two_factor_on")).toEqual([
      {
        actor: "admin:tf-a@example.com",
        target_id: String(admin.id),
        details: { email: "tf-a@example.com", recoveryCodes: 10 },
      },
    ]);

    // The code that confirmed the set-up is used up; so is each code once accepted.
    expect(await checkSecondFactor(admin.id, code)).toBeUndefined();
    const next = await freshTotpCode("tf-a@example.com", setup.secret);
    expect(await checkSecondFactor(admin.id, next)).toBe("totp");
    expect(await checkSecondFactor(admin.id, next)).toBeUndefined();
    expect(await startTwoFactorSetup(admin.id)).toEqual({ status: "already_on" });
  });

  it("turns off with a recovery code, not with a wrong one; an owner resets another admin's", async () => {
    await newAdmin("tf-b@example.com", "operator");
    const { recoveryCodes } = await enableTwoFactor("tf-b@example.com");
    const id = (await findActiveAdmin("tf-b@example.com"))!.id;
    expect(
      await turnOffTwoFactor({
        adminId: id,
        password: PASSWORD,
        code: "AAAA-AAAA-AAAA-AAAA",
        actor: "admin:tf-b@example.com",
        source: "192.0.2.1",
      }),
    ).toEqual({
      status: "wrong_code",
    });
    expect(
      await turnOffTwoFactor({
        adminId: id,
        password: PASSWORD,
        code: recoveryCodes[0]!,
        actor: "admin:tf-b@example.com",
        source: "192.0.2.1",
      }),
    ).toEqual({ status: "off" });
    expect((await findActiveAdmin("tf-b@example.com"))!.totpEnabledAt).toBeNull();
    expect((await sqlRow(`SELECT count(*)::int AS n FROM admin_recovery_codes WHERE admin_user_id = $1`, [id])).n).toBe(
      0,
    );
    // With two-factor off the password alone signs in again.
    expect(await verifyAdminPassword("tf-b@example.com", PASSWORD)).toBeDefined();

    await enableTwoFactor("tf-b@example.com");
    expect(await verifyAdminPassword("tf-b@example.com", PASSWORD)).toBeUndefined();
    expect(await resetAdminTwoFactor({ adminId: id, actor: "admin:owner-b@example.com" })).toEqual({
      status: "reset",
      email: "tf-b@example.com",
    });
    expect(await resetAdminTwoFactor({ adminId: id, actor: "admin:owner-b@example.com" })).toEqual({
      status: "not_on",
    });
    expect((await auditOf("admin_user.two_factor_off")).map((row) => row.details)).toEqual([
      { email: "tf-b@example.com", with: "recovery_code" },
    ]);
    expect((await auditOf("admin_user.two_factor_reset")).map((row) => row.actor)).toEqual([
      "admin:owner-b@example.com",
    ]);
  });
});
