// The soak's world, made through the same lib/ functions the dashboard and the bot use: two h2h
// supplier accounts carrying every top-up pack (failover from the first to the second), a gift-card
// pack with codes in stock, funded accounts each with a live and a test key and a webhook endpoint
// per mode, and an admin linked to Telegram who credits and debits through the bot.
import { getPrisma } from "@/lib/db/prisma";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { adminActor } from "@/lib/admin-users/admin-user-record";
import { issueTelegramLinkCode } from "@/lib/admin-users/issue-telegram-link-code";
import { linkTelegramAccount } from "@/lib/admin-users/link-telegram-account";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import { saveGameLine, type SaveCatalogResult } from "@/lib/catalog/save-game-line";
import { savePack } from "@/lib/catalog/save-pack";
import { saveSupplierAccount, saveSupplierOffer } from "@/lib/suppliers/manage-suppliers";
import { supplierDestinationPolicy } from "@/lib/suppliers/supplier-destination";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { creditTestWallet, openHolderTestAccount } from "@/lib/wallet/test-wallet";
import { addWebhookEndpoint } from "@/lib/webhooks/add-webhook-endpoint";
import { ADMIN_BUTTON_ROLE } from "@/bot/commands";
import { DEV_POLICY } from "../helpers/webhooks";
import { enableTwoFactor } from "../helpers/two-factor";
import type { FakeUser } from "../helpers/fake-telegram";
import { CODE_PACK, LIVE_PLAYERS, SOAK_ACCOUNTS, TOPUP_PACKS, type Mode } from "./plan";
import type { Topology } from "./topology";

const OWNER = "admin:soak-owner@example.test";
const LINE_SWITCHES = { serverIdOptions: null, orderable: true, available: true };
const PACK_DEFAULTS = { active: true, stockAlertBelow: null };
const GIFT_CARD_CODES = 600;

interface SoakAccount {
  id: number;
  /** The account's test wallet (test mode's orders, ledger and events). */
  testId: number;
  username: string;
  /** A live and a test key, and a live key for bursts alone. */
  keys: Record<Mode | "burst", string>;
  /** Each mode's endpoint: its receiver and its signing secret. */
  endpoints: Record<Mode, { receiver: number; path: string; secret: string }>;
}

export interface SoakWorld {
  accounts: SoakAccount[];
  admin: FakeUser;
}

async function must<T extends { status: string }>(
  what: string,
  result: Promise<T>,
  ok = ["saved", "created", "imported"],
) {
  const settled = await result;
  if (!ok.includes(settled.status)) throw new Error(`${what}: ${JSON.stringify(settled)}`);
  return settled;
}

/** The id of the line or pack a catalog save created. */
async function savedId(what: string, result: Promise<SaveCatalogResult>): Promise<number> {
  const settled = await result;
  if (settled.status !== "created") throw new Error(`${what}: ${JSON.stringify(settled)}`);
  return settled.id;
}

export async function seedSoakWorld(topology: Topology): Promise<SoakWorld> {
  const prisma = getPrisma();
  const topups = await savedId(
    "top-up line",
    saveGameLine({
      fields: {
        ...LINE_SWITCHES,
        slug: "soak",
        code: "SK",
        gameName: "Soak Royale",
        productName: "Gems",
        kind: "topup",
        supplier: "soak-a",
        requiredFields: [{ field: "userId", label: "Player ID" }],
      },
      actor: OWNER,
    }),
  );
  for (const [i, pid] of TOPUP_PACKS.entries())
    await savedId(
      pid,
      savePack({
        lineId: topups,
        fields: {
          ...PACK_DEFAULTS,
          catalogId: pid,
          packName: `${(i + 1) * 100} gems`,
          priceCents: 100 * (i + 1),
          supplierSku: pid.toLowerCase(),
        },
        actor: OWNER,
      }),
    );
  const cards = await savedId(
    "gift-card line",
    saveGameLine({
      fields: {
        ...LINE_SWITCHES,
        slug: "soakgc",
        code: "GC",
        gameName: "Soak Store",
        productName: "Gift card",
        kind: "giftcard",
        supplier: "sandbox",
        requiredFields: [],
      },
      actor: OWNER,
    }),
  );
  const card = await savedId(
    CODE_PACK,
    savePack({
      lineId: cards,
      fields: { ...PACK_DEFAULTS, catalogId: CODE_PACK, packName: "$5 card", priceCents: 500, supplierSku: null },
      actor: OWNER,
    }),
  );
  const codes = Array.from({ length: GIFT_CARD_CODES }, (_, i) => `SOAKCARD-${String(i).padStart(5, "0")}`).join("\n");
  await must(
    "gift-card codes",
    importInventoryCodes({ productId: card, sources: [{ label: "soak", text: codes }], actor: OWNER }),
  );

  const policy = supplierDestinationPolicy({ suppliersAllowPrivate: true });
  for (const [i, supplier] of topology.suppliers.entries()) {
    const name = `soak-${"ab"[i]}`;
    await must(
      name,
      saveSupplierAccount({
        name,
        kind: "h2h",
        settings: { baseUrl: supplier.baseUrl, partnerId: supplier.partnerId, timeoutMs: 2000 },
        secret: supplier.secret,
        actor: OWNER,
        policy,
      }),
    );
    for (const pid of TOPUP_PACKS)
      await must(
        `${name} offer`,
        saveSupplierOffer({
          catalogId: pid,
          supplierName: name,
          sku: pid.toLowerCase(),
          costCents: 50,
          priority: i + 1,
          actor: OWNER,
        }),
      );
    for (const player of LIVE_PLAYERS) supplier.addPlayer(player, `Soaker-${player.slice(-2)}`);
  }
  // Redeem codes at the verify-and-redeem supplier (the first): a few already used.
  for (let i = 1; i <= 40; i++) topology.suppliers[0]!.addCode(`SOAK-${i}`, i <= 5 ? "used" : "unused");

  const accounts: SoakAccount[] = [];
  for (let i = 0; i < SOAK_ACCOUNTS; i++) {
    const username = `soaker${i}`;
    const account = await prisma.account.create({
      data: { telegramId: BigInt(7_700_000 + i), telegramUsername: username, apiEnabled: true },
    });
    await creditWallet({ accountId: account.id, amountCents: 200_000, actor: OWNER, reason: "soak funding" });
    await creditTestWallet(account.id, 200_000, `telegram:${7_700_000 + i}`);
    const keys = {} as SoakAccount["keys"];
    for (const use of ["live", "test", "burst"] as const) {
      const issued = await issueApiKey(account.id, OWNER, { livemode: use !== "test" });
      if (issued.status !== "created") throw new Error(`${use} key: ${issued.status}`);
      keys[use] = issued.key;
    }
    const testId = await openHolderTestAccount(account.id);
    const endpoints = {} as SoakAccount["endpoints"];
    for (const mode of ["live", "test"] as const) {
      const receiver = i % topology.receivers.length;
      const path = `/account-${i}-${mode}`;
      const added = await addWebhookEndpoint({
        accountId: mode === "live" ? account.id : testId,
        url: `${topology.receivers[receiver]!.url}${path}`,
        actor: OWNER,
        policy: DEV_POLICY,
      });
      if (added.status !== "added") throw new Error(`webhook endpoint: ${JSON.stringify(added)}`);
      endpoints[mode] = { receiver, path: `/hooks${path}`, secret: added.secret };
    }
    accounts.push({ id: account.id, testId, username, keys, endpoints });
  }

  const admin: FakeUser = { id: 7_799_001, first_name: "Soak", username: "soak_admin" };
  const email = "soak-admin@example.test";
  const created = await createAdminUser({
    email,
    password: "soak-admin-password-1",
    role: ADMIN_BUTTON_ROLE,
    actor: OWNER,
  });
  if (created.status !== "created") throw new Error(`admin: ${created.status}`);
  // Admin commands and buttons need two-factor on, as the dashboard does.
  await enableTwoFactor(email);
  const { code } = await issueTelegramLinkCode({ adminId: created.admin.id, actor: adminActor(email) });
  const linked = await linkTelegramAccount({ code, telegramId: admin.id, actor: `telegram:${admin.id}` });
  if (linked.status !== "linked") throw new Error(`admin link: ${linked.status}`);
  return { accounts, admin };
}
