// The Deposits page and the bank statement import in Chromium against the real server: an owner sets
// the payment methods; the queue shows the open requests with their proofs (the proof's file served
// to admins only); an approval credits once and a rejection needs a reason; a statement is previewed
// (matched rows, unmatched rows listed, nothing changed), its matched rows approved together, each
// once, and importing the same file again credits nothing. The books balance after it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { closePool } from "@/lib/db/pool";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { openDepositRequest } from "@/lib/deposits/open-deposit-request";
import { attachDepositProof } from "@/lib/deposits/attach-deposit-proof";
import { readDepositSettings } from "@/lib/deposits/deposit-settings";
import { enableTwoFactor } from "../helpers/two-factor";
import { suiteBaseUrl } from "../helpers/suite";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance } from "../helpers/orders";
import { findChromium, launchBrowser, newDashboardContext, pageProblems, screenshot, signIn } from "../helpers/browser";

const OWNER_EMAIL = "deposits-owner@example.com";
const PASSWORD = "correct horse battery staple";
const chromiumPath = findChromium();
if (!chromiumPath)
  console.log("[deposits dashboard e2e] skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)");

/** A 1×1 PNG: what a holder's photo proof stands for. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

const balanceOf = async (accountId: number) =>
  Number((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [accountId])).balance_cents);
/** The request's state once it is `wanted`, else what the page's forms answered (so a refusal shows). */
const stateOrAnswers = async (page: Page, reference: string, wanted: string) => {
  const status = await statusOf(reference);
  return status === wanted ? status : `${status}: ${(await page.getByRole("status").allTextContents()).join(" | ")}`;
};
const statusOf = async (reference: string) =>
  (await sqlRow(`SELECT status FROM deposit_requests WHERE reference = $1`, [reference])).status as string;

describe.skipIf(!chromiumPath)("the Deposits page", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ownerTotpSecret: string;
  const holders: number[] = [];
  const open: { reference: string; amountCents: number; accountId: number }[] = [];

  beforeAll(async () => {
    await resetDatabase();
    expect(
      (await createAdminUser({ email: OWNER_EMAIL, password: PASSWORD, role: "owner", actor: "test" })).status,
    ).toBe("created");
    ownerTotpSecret = (await enableTwoFactor(OWNER_EMAIL)).secret;
    for (let n = 0; n < 4; n++) holders.push((await createAccount({ key: false, username: `payer_${n}` })).accountId);
    browser = await launchBrowser();
    context = await newDashboardContext(browser);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await closePool();
    await closeSql();
  });

  it("is refused without a session, the proof's file too", async () => {
    for (const path of ["/admin/deposits", "/admin/deposits/import", "/admin/deposits/1/proof"]) {
      const res = await fetch(`${suiteBaseUrl()}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(307);
      expect(new URL(res.headers.get("location")!, suiteBaseUrl()).pathname).toBe("/admin/login");
    }
  });

  it("an owner sets the payment methods /deposit answers", async () => {
    await signIn(page, OWNER_EMAIL, PASSWORD, { totpSecret: ownerTotpSecret });
    await page.goto("/admin/deposits");
    const form = page.getByRole("form", { name: "Payment methods" });
    await form
      .getByRole("textbox", { name: "Methods" })
      .fill("Bank transfer\nIBAN DE00 1234\nTop-up Ltd\n\nUSDT (TRC20)\nTXYZ-address");
    await form.getByRole("textbox", { name: /Requests valid for/ }).fill("90");
    await form.getByRole("button", { name: "Save methods…" }).click();
    await form.getByRole("button", { name: "Confirm: Save methods" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toContain("Saved: 2 payment methods");
    expect(await readDepositSettings()).toMatchObject({
      methods: [
        { name: "Bank transfer", instructions: "IBAN DE00 1234\nTop-up Ltd" },
        { name: "USDT (TRC20)", instructions: "TXYZ-address" },
      ],
      validityMinutes: 90,
    });
    for (const [n, cents] of [5_000, 5_000, 2_500, 7_000].entries()) {
      const opened = await openDepositRequest({ accountId: holders[n]!, requestedCents: cents, actor: "test" });
      if (opened.status !== "opened") throw new Error(opened.status);
      open.push({
        reference: opened.deposit.reference,
        amountCents: opened.deposit.amountCents,
        accountId: holders[n]!,
      });
    }
    await attachDepositProof({
      accountId: holders[0]!,
      proof: { kind: "photo", bytes: PNG, fileName: "photo.jpg", mime: "image/png", caption: "paid" },
      actor: "test",
    });
    await attachDepositProof({
      accountId: holders[1]!,
      proof: { kind: "text", text: "Acme Bank ref 9912" },
      actor: "test",
    });
  });

  it("the queue shows the open requests and their proofs; an approval credits once, a rejection tells why", async () => {
    await page.goto("/admin/deposits");
    const queue = page.getByRole("table", { name: "Deposit requests" });
    for (const deposit of open)
      await expect.poll(() => queue.locator(`tr[data-reference="${deposit.reference}"]`).count()).toBe(1);
    const first = queue.locator(`tr[data-reference="${open[0]!.reference}"]`);
    expect(await first.textContent()).toContain("$50.01");
    const proofHref = await first.getByRole("link", { name: "photo" }).getAttribute("href");
    const proof = await context.request.get(proofHref!);
    expect(proof.status()).toBe(200);
    expect(proof.headers()["content-type"]).toBe("image/png");
    expect(Buffer.compare(await proof.body(), PNG)).toBe(0);
    expect(await queue.locator(`tr[data-reference="${open[1]!.reference}"]`).textContent()).toContain(
      "Acme Bank ref 9912",
    );
    await screenshot(page, "deposits");

    const approve = page.getByRole("form", { name: `Approve ${open[0]!.reference}` });
    await approve.getByRole("button", { name: "Approve…" }).click();
    expect(await statusOf(open[0]!.reference)).toBe("pending"); // nothing before the confirmation
    await approve.getByRole("button", { name: "Confirm: Approve" }).click();
    await expect.poll(() => stateOrAnswers(page, open[0]!.reference, "approved"), { timeout: 15_000 }).toBe("approved");
    expect(await balanceOf(holders[0]!)).toBe(5_001);

    const reject = page.getByRole("form", { name: `Reject ${open[3]!.reference}` });
    await reject.getByRole("textbox", { name: "Reason" }).fill("no such transfer on our account");
    await reject.getByRole("button", { name: "Reject…" }).click();
    await reject.getByRole("button", { name: "Confirm: Reject" }).click();
    await expect.poll(() => stateOrAnswers(page, open[3]!.reference, "rejected"), { timeout: 15_000 }).toBe("rejected");
    expect(await balanceOf(holders[3]!)).toBe(0);

    await page.goto("/admin/deposits?status=all");
    const all = page.getByRole("table", { name: "Deposit requests" });
    expect(await all.locator(`tr[data-reference="${open[0]!.reference}"]`).getAttribute("data-status")).toBe(
      "approved",
    );
    expect(await all.locator(`tr[data-reference="${open[3]!.reference}"]`).textContent()).toContain(
      "no such transfer on our account",
    );
    const audit = page.getByRole("table", { name: "Deposit audit entries" });
    expect(await audit.locator('tr[data-action="deposit.approved"]').count()).toBe(1);
    expect(await audit.locator('tr[data-action="deposit.rejected"]').count()).toBe(1);
  });

  it("a statement: preview lists matched and unmatched rows; the matched are approved together, each once; the same file again credits nothing", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const usd = (cents: number) => (cents / 100).toFixed(2);
    const csv = [
      "date,amount,description",
      `${today},${usd(open[1]!.amountCents)},transfer from payer 1`,
      `${today},${usd(open[2]!.amountCents)},${open[2]!.reference}`,
      `${today},${usd(open[0]!.amountCents)},approved already on the queue`,
      `${today},123.45,someone else`,
      `${today},-20.00,bank fee`,
    ].join("\n");
    const entriesBefore = Number((await sqlRow(`SELECT count(*) AS n FROM ledger_entries`)).n);

    await page.goto("/admin/deposits/import");
    const previewForm = page.getByRole("form", { name: "Preview statement" });
    await previewForm.getByRole("textbox", { name: "Statement CSV" }).fill(csv);
    await previewForm.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => previewForm.getByRole("status").textContent())
      .toBe("2 rows matched to open requests, 3 unmatched.");
    const matched = page.getByRole("table", { name: "Matched rows", exact: true });
    expect(
      await matched.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-reference"))),
    ).toEqual([open[1]!.reference, open[2]!.reference]);
    const unmatched = page.getByRole("table", { name: "Unmatched rows", exact: true });
    expect(await unmatched.locator("tbody tr").allTextContents()).toEqual([
      expect.stringContaining(`no open request of $${usd(open[0]!.amountCents)}`),
      expect.stringContaining("no open request of $123.45"),
      expect.stringContaining("outgoing: not a deposit"),
    ]);
    // The preview changed nothing.
    expect(await statusOf(open[1]!.reference)).toBe("pending");
    await screenshot(page, "deposits-import");

    const approveAll = page.getByRole("form", { name: "Approve matched rows", exact: true });
    await approveAll.getByRole("button", { name: "Approve matched…" }).click();
    await approveAll.getByRole("button", { name: "Confirm: Approve matched" }).click();
    await expect
      .poll(() => approveAll.getByRole("status").textContent(), { timeout: 15_000 })
      .toBe("Approved 2 deposits.");
    expect(await statusOf(open[1]!.reference)).toBe("approved");
    expect(await statusOf(open[2]!.reference)).toBe("approved");
    expect(await balanceOf(holders[1]!)).toBe(open[1]!.amountCents);
    expect(await balanceOf(holders[2]!)).toBe(open[2]!.amountCents);
    expect(Number((await sqlRow(`SELECT count(*) AS n FROM ledger_entries`)).n)).toBe(entriesBefore + 2);

    // The same file again: its rows were credited, nothing matches, nothing can be approved.
    await page.goto("/admin/deposits/import");
    const again = page.getByRole("form", { name: "Preview statement" });
    await again.getByRole("textbox", { name: "Statement CSV" }).fill(csv);
    await again.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => again.getByRole("status").textContent())
      .toBe("0 rows matched to open requests, 5 unmatched.");
    const reasons = await page
      .getByRole("table", { name: "Unmatched rows", exact: true })
      .locator("tbody tr")
      .allTextContents();
    expect(reasons[0]).toContain(`already credited: ${open[1]!.reference}`);
    expect(reasons[1]).toContain(`already credited: ${open[2]!.reference}`);
    expect(await page.getByRole("form", { name: "Approve matched rows", exact: true }).count()).toBe(0);
    expect(Number((await sqlRow(`SELECT count(*) AS n FROM ledger_entries`)).n)).toBe(entriesBefore + 2);
    expect(await sql(`SELECT actor FROM audit_log WHERE action = 'deposit.statement_import'`)).toEqual([
      { actor: `admin:${OWNER_EMAIL}` },
    ]);
    await expectBooksBalance();
    expect(pageProblems(context).cspViolations, "Content-Security-Policy violations").toEqual([]);
  });
});
