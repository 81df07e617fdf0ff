// Every dashboard server action against every role, over real HTTP with next-auth's session cookie:
// a viewer, an operator and an owner (signed in with their second factor), the owner's session that
// signed in without it (one opened before two-factor was on), and the owner's session whose second
// factor is 16 minutes old each post every action of the build (its server-reference manifest) with
// a confirmed form. Each action refuses the roles below its own, every action refuses a session
// without a second factor, money and admin changes refuse a second factor older than 15 minutes
// (asking for a step-up), and the refusals change nothing in the database; the others get past.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { roleAllows, type AdminRole } from "@/lib/admin-users/admin-role";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { dashboardActions, postActionForm, SERVER_REFERENCE_MANIFEST } from "../helpers/dashboard-actions";
import { mintSessionCookie, signInOverHttp } from "../helpers/admin-session";
import { enableTwoFactor, freshTotpCode } from "../helpers/two-factor";

const built = fs.existsSync(SERVER_REFERENCE_MANIFEST);
if (!built) console.log("[dashboard roles] skipped: no Next build (.next); run `npm run build` first");

/**
 * The role each dashboard action needs. An action missing here (or from SESSION_ACTIONS) fails the
 * test: whoever adds one says which role it needs.
 */
const ACTION_ROLES: Record<string, AdminRole> = {
  // Your account: every admin manages their own two-factor.
  turnOffTwoFactorAction: "viewer",
  regenerateRecoveryCodesAction: "viewer",
  // Your account: every admin links their own Telegram account (the bot then grants their role).
  issueTelegramLinkCodeAction: "viewer",
  unlinkTelegramAction: "viewer",
  // Orders, switches, account states, webhooks.
  completeFlaggedOrderAction: "operator",
  cancelAndRefundFlaggedOrderAction: "operator",
  setSwitchAction: "operator",
  setEligibilityRuleAction: "operator",
  // Deposits: deciding one (an approval is a credit) and matching a bank statement.
  approveDepositAction: "operator",
  rejectDepositAction: "operator",
  previewStatementAction: "operator",
  approveStatementAction: "operator",
  // Four eyes on money: owners set the amount above which a credit needs a second admin.
  setLargeCreditThresholdAction: "owner",
  // Where holders send their money: the owners'.
  saveDepositSettingsAction: "owner",
  banAccountAction: "operator",
  unbanAccountAction: "operator",
  restrictAccountAction: "operator",
  liftRestrictionAction: "operator",
  blockApiAction: "operator",
  unblockApiAction: "operator",
  redeliverWebhookAction: "operator",
  replayWebhookRangeAction: "operator",
  // Catalog, price lists, tiers, suppliers, admins.
  saveGameLineAction: "owner",
  savePackAction: "owner",
  changeLinePricesAction: "owner",
  previewPriceListAction: "owner",
  applyPriceListAction: "owner",
  createPriceTierAction: "owner",
  renamePriceTierAction: "owner",
  removePriceTierAction: "owner",
  setTierPackPriceAction: "owner",
  clearTierPackPriceAction: "owner",
  setAccountTierAction: "owner",
  setLineOrderableAction: "owner",
  setProductActiveAction: "owner",
  setProductPriceAction: "owner",
  importInventoryCodesAction: "owner",
  setSupplierPausedAction: "owner",
  saveSupplierAction: "owner",
  saveOfferAction: "owner",
  removeOfferAction: "owner",
  inviteAdminAction: "owner",
  setAdminRoleAction: "owner",
  setAdminDisabledAction: "owner",
  resetAdminTwoFactorAction: "owner",
};

/** Money and admin changes: they also need the second factor proved within 15 minutes. */
const RECENT_ACTIONS = new Set([
  "completeFlaggedOrderAction",
  "cancelAndRefundFlaggedOrderAction",
  "inviteAdminAction",
  "setAdminRoleAction",
  "setAdminDisabledAction",
  "resetAdminTwoFactorAction",
  // A Telegram link outlives the session; the large-credit amount decides what one admin moves alone.
  "issueTelegramLinkCodeAction",
  "setLargeCreditThresholdAction",
  // Deposit approvals credit wallets; the payment methods say where holders send money.
  "approveDepositAction",
  "approveStatementAction",
  "saveDepositSettingsAction",
]);

/**
 * The session's own actions, for any admin: the enrolment (tests/e2e/dashboard-admins.test.ts) and
 * the step-up (tests/e2e/dashboard-sessions.test.ts). Each checks the session itself.
 */
const SESSION_ACTIONS = new Set(["startEnrolmentAction", "confirmEnrolmentAction", "stepUpAction"]);

interface TestAdmin {
  label: string;
  email: string;
  role: AdminRole;
  /** The session signed in with the second factor. */
  secondFactor: boolean;
  /** ... and proved it within the last 15 minutes. */
  recent: boolean;
  cookie: string;
}

const PASSWORD = "a long enough test password";
const WITHOUT_SECOND_FACTOR = "This session signed in without a second factor";
const STEP_UP = "needs your two-factor code from the last 15 minutes";
const REFUSALS = [
  /Needs the \w+ role/,
  new RegExp(WITHOUT_SECOND_FACTOR),
  new RegExp(STEP_UP),
  /Not signed in/,
  /Not confirmed/,
];

/**
 * Every table an action could change: row count and a digest of the rows. An API key's last_used_at
 * is left out: the API stamps it in batches, after the request that used the key (the order above).
 */
async function snapshot(): Promise<Record<string, { n: number; digest: string }>> {
  const tables = (
    await sql<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY 1`,
    )
  ).map((row) => row.name);
  const result: Record<string, { n: number; digest: string }> = {};
  for (const table of tables) {
    result[table] = await sqlRow(
      `SELECT count(*)::int AS n,
                md5(coalesce(string_agg((to_jsonb(t) - 'last_used_at')::text, '|' ORDER BY t::text), '')) AS digest
           FROM "${table}" t`,
    );
  }
  return result;
}

function allowed(admin: TestAdmin, action: string): boolean {
  return (
    roleAllows(admin.role, ACTION_ROLES[action]!) && admin.secondFactor && (admin.recent || !RECENT_ACTIONS.has(action))
  );
}

/** Why the action refuses the admin (allowed() is false). */
function refusal(admin: TestAdmin, action: string): string {
  const needed = ACTION_ROLES[action]!;
  if (!admin.secondFactor) return WITHOUT_SECOND_FACTOR;
  if (!roleAllows(admin.role, needed)) return `Needs the ${needed} role (yours is ${admin.role})`;
  return STEP_UP;
}

describe.skipIf(!built)("every dashboard action refuses the roles below its own", () => {
  const admins: TestAdmin[] = [];
  let ids: { orderId: number; accountId: number };

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    const customer = await createAccount({ balanceCents: 5_000 });
    const placed = await order(customer.key, { pid: "SVCBR60", trxid: newTrxid("roles"), userId: "7100001" });
    expect(placed.status).toBe(200);
    const orderRow = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [placed.json.orderId]);
    ids = { orderId: orderRow.id, accountId: customer.accountId };

    for (const role of ["viewer", "operator", "owner"] as const) {
      const email = `${role}@example.com`;
      expect((await createAdminUser({ email, password: PASSWORD, role, actor: "test" })).status).toBe("created");
      const { secret } = await enableTwoFactor(email);
      const answer = await signInOverHttp({ email, password: PASSWORD, code: await freshTotpCode(email, secret) });
      expect(answer.sessionCookie, `a session for the ${role}`).toBeDefined();
      admins.push({ label: role, email, role, secondFactor: true, recent: true, cookie: answer.sessionCookie! });
    }
    // The owner's other sessions, as the server would have issued them.
    const owner = "owner@example.com";
    const sixteenMinutesAgo = Math.floor(Date.now() / 1000) - 16 * 60;
    admins.push(
      {
        label: "owner's session without a second factor",
        email: owner,
        role: "owner",
        secondFactor: false,
        recent: false,
        cookie: await mintSessionCookie({ email: owner, secondFactorAt: null }),
      },
      {
        label: "owner's session of 16 minutes ago",
        email: owner,
        role: "owner",
        secondFactor: true,
        recent: false,
        cookie: await mintSessionCookie({ email: owner, signedInAt: sixteenMinutesAgo }),
      },
    );
  });

  afterAll(closeSql);

  it("names the role of every action in the build", () => {
    const names = dashboardActions(ids).map((action) => action.name);
    expect(
      names.filter((name) => !(name in ACTION_ROLES) && !SESSION_ACTIONS.has(name)),
      "actions missing from ACTION_ROLES",
    ).toEqual([]);
    expect(
      Object.keys(ACTION_ROLES).filter((name) => !names.includes(name)),
      "ACTION_ROLES naming no action",
    ).toEqual([]);
  });

  it("refuses each role below the action's own and changes nothing; lets the others through", async () => {
    const actions = dashboardActions(ids).filter((action) => action.name in ACTION_ROLES);
    expect(actions).toHaveLength(Object.keys(ACTION_ROLES).length);
    const before = await snapshot();
    for (const action of actions) {
      const needed = ACTION_ROLES[action.name]!;
      for (const admin of admins.filter((a) => !allowed(a, action.name))) {
        const res = await postActionForm(action, { confirmed: "yes" }, { cookie: admin.cookie });
        const body = await res.text();
        const what = `${action.name} (${needed}) as the ${admin.label}`;
        expect(res.status, what).toBe(200);
        expect(body, what).toContain(refusal(admin, action.name));
      }
    }
    expect(await snapshot()).toEqual(before);

    for (const action of actions) {
      const needed = ACTION_ROLES[action.name]!;
      for (const admin of admins.filter((a) => allowed(a, action.name))) {
        const res = await postActionForm(action, { confirmed: "yes" }, { cookie: admin.cookie });
        const body = await res.text();
        const what = `${action.name} (${needed}) as the ${admin.label}`;
        expect(res.status, what).toBe(200);
        for (const refusal of REFUSALS) expect(body, what).not.toMatch(refusal);
      }
    }
  });
});
