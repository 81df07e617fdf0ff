// Who the bot's notices reach, through a local Bot API: owners' notices (notifyOwners) go to the
// linked owners, and every admin's (notifyAdmins) to every linked admin; the bootstrap ids of
// ADMIN_TELEGRAM_IDS get both only while no owner is linked, and never anything else.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Telegram } from "telegraf";
import { pointAtDatabase } from "@/lib/config/env";
import { notifyOwners } from "@/lib/telegram/notify-owners";
import { notifyAdmins } from "@/lib/telegram/notify-admins";
import { useCleanDatabase } from "../helpers/clean-database";
import { sql } from "../helpers/db";
import { FakeTelegram } from "../helpers/fake-telegram";
import { createLinkedAdmin } from "../helpers/telegram-admins";

const BOOTSTRAP = vi.hoisted(() => {
  const id = 4_900_000_009;
  process.env.ADMIN_TELEGRAM_IDS = String(id);
  return id;
});
const OWNER = 4_900_000_001;
const OPERATOR = 4_900_000_002;

useCleanDatabase({ catalog: false });
let fake: FakeTelegram;
let telegram: Telegram;

beforeAll(async () => {
  fake = await FakeTelegram.start();
  telegram = new Telegram(fake.token, { apiRoot: fake.apiRoot });
  // notifyOwners sends with the process's own bot token and Bot API root, as the worker and web do.
  process.env.TELEGRAM_BOT_TOKEN = fake.token;
  process.env.TELEGRAM_API_ROOT = fake.apiRoot;
  pointAtDatabase(process.env.DATABASE_URL!); // read the environment again
});

afterAll(async () => {
  await fake?.close();
});

const told = (text: string) => [OWNER, OPERATOR, BOOTSTRAP].filter((chat) => fake.textsTo(chat).includes(text)).sort();

describe("notices", () => {
  it("while no owner is linked, the bootstrap ids get the owners' notices", async () => {
    await createLinkedAdmin(OPERATOR, "operator");
    await notifyOwners("owners, before");
    expect(told("owners, before")).toEqual([BOOTSTRAP]);
    expect(await notifyAdmins("admins, before", telegram)).toBe(2);
    expect(told("admins, before")).toEqual([OPERATOR, BOOTSTRAP].sort());
  });

  it("once an owner is linked, only linked admins: owners' notices to owners", async () => {
    const owner = await createLinkedAdmin(OWNER, "owner");
    await notifyOwners("owners, after");
    expect(told("owners, after")).toEqual([OWNER]);
    expect(await notifyAdmins("admins, after", telegram)).toBe(2);
    expect(told("admins, after")).toEqual([OWNER, OPERATOR].sort());

    // A disabled owner is no owner: the bootstrap ids hear again.
    await sql(`UPDATE admin_users SET disabled = true WHERE id = $1`, [owner.adminId]);
    await notifyOwners("owners, disabled");
    expect(told("owners, disabled")).toEqual([BOOTSTRAP]);
  });
});
