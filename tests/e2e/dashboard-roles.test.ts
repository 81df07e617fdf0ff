// Every dashboard server action against every role, over real HTTP with next-auth's session cookie:
// a viewer, an operator, an owner without two-factor and an owner with it each post every action of
// the build (its server-reference manifest) with a confirmed form. Each action refuses the roles
// below its own (and owner actions refuse an owner without two-factor), and the refusals change
// nothing in the database; the roles it allows get past the check.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { roleAllows, type AdminRole } from "@/lib/admin-users/admin-role";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { dashboardActions, postActionForm, SERVER_REFERENCE_MANIFEST } from "../helpers/dashboard-actions";
import { signInOverHttp } from "../helpers/admin-session";
import { enableTwoFactor, freshTotpCode } from "../helpers/two-factor";

const built = fs.existsSync(SERVER_REFERENCE_MANIFEST);
if (!built) console.log("[dashboard roles] skipped: no Next build (.next); run `npm run build` first");

/**
 * The role each dashboard action needs. An action missing here fails the test: whoever adds one
 * says which role it needs.
 */
const ACTION_ROLES: Record<string, AdminRole> = {
  // Your account: every admin manages their own two-factor.
  startTwoFactorSetupAction: "viewer",
  confirmTwoFactorSetupAction: "viewer",
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
  // Four eyes on money: owners set the amount above which a credit needs a second admin.
  setLargeCreditThresholdAction: "owner",
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

interface TestAdmin {
  label: string;
  email: string;
  role: AdminRole;
  twoFactor: boolean;
  cookie: string;
}

const PASSWORD = "a long enough test password";
const REFUSALS = [/Needs the \w+ role/, /Owner actions need two-factor/, /Not signed in/, /Not confirmed/];

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

function allowed(admin: TestAdmin, needed: AdminRole): boolean {
  return roleAllows(admin.role, needed) && (needed !== "owner" || admin.twoFactor);
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

    for (const [label, role, twoFactor] of [
      ["viewer", "viewer", false],
      ["operator", "operator", false],
      ["owner without two-factor", "owner", false],
      ["owner with two-factor", "owner", true],
    ] as const) {
      const email = `${label.replaceAll(" ", "-")}@example.com`;
      expect((await createAdminUser({ email, password: PASSWORD, role, actor: "test" })).status).toBe("created");
      const secret = twoFactor ? (await enableTwoFactor(email)).secret : undefined;
      const answer = await signInOverHttp({
        email,
        password: PASSWORD,
        code: secret ? await freshTotpCode(email, secret) : undefined,
      });
      expect(answer.sessionCookie, `a session for the ${label}`).toBeDefined();
      admins.push({ label, email, role, twoFactor, cookie: answer.sessionCookie! });
    }
  });

  afterAll(closeSql);

  it("names the role of every action in the build", () => {
    const names = dashboardActions(ids).map((action) => action.name);
    expect(
      names.filter((name) => !(name in ACTION_ROLES)),
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
      for (const admin of admins.filter((a) => !allowed(a, needed))) {
        const res = await postActionForm(action, { confirmed: "yes" }, { cookie: admin.cookie });
        const body = await res.text();
        const what = `${action.name} (${needed}) as the ${admin.label}`;
        expect(res.status, what).toBe(200);
        if (roleAllows(admin.role, needed)) expect(body, what).toContain("Owner actions need two-factor sign-in");
        else expect(body, what).toContain(`Needs the ${needed} role (yours is ${admin.role})`);
      }
    }
    expect(await snapshot()).toEqual(before);

    for (const action of actions) {
      const needed = ACTION_ROLES[action.name]!;
      for (const admin of admins.filter((a) => allowed(a, needed))) {
        const res = await postActionForm(action, { confirmed: "yes" }, { cookie: admin.cookie });
        const body = await res.text();
        const what = `${action.name} (${needed}) as the ${admin.label}`;
        expect(res.status, what).toBe(200);
        for (const refusal of REFUSALS) expect(body, what).not.toMatch(refusal);
      }
    }
  });
});
