// The migration that stopped storing redeem codes: run on a table of the old shape, it keeps the
// last 4 characters wherever the old mask still showed them, and drops the masked code.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { suiteDatabaseUrl } from "../helpers/suite";

const MIGRATION = path.join(
  projectRoot,
  "prisma",
  "migrations",
  "20261123092830_redemption_code_fingerprint",
  "migration.sql",
);
const SCHEMA = `migration_test_${process.pid}`;
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: suiteDatabaseUrl() });
  await client.connect();
  await client.query(`CREATE SCHEMA ${SCHEMA}`);
  await client.query(`SET search_path TO ${SCHEMA}`);
});
afterAll(async () => {
  await client.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
  await client.end();
});

it("keeps the visible last 4 characters, drops the masked code, and leaves old rows without a fingerprint", async () => {
  await client.query(
    `CREATE TABLE redemptions (id SERIAL PRIMARY KEY, account_id INTEGER NOT NULL, kind TEXT NOT NULL, code_mask TEXT, trxid TEXT)`,
  );
  await client.query(
    `INSERT INTO redemptions (account_id, kind, code_mask, trxid) VALUES
       (1, 'redeem-br', 'ABCD-****-1234', 't1'), (1, 'redeem-br', 'ABCD-****-1234', 't1'),
       (1, 'redeem-br', 'WXYZ-**-AB', 't2'), (1, 'redeem-br', 'QRST-UV', NULL), (1, 'verify-br', NULL, 't3')`,
  );
  await client.query(fs.readFileSync(MIGRATION, "utf8"));
  const { rows } = await client.query(`SELECT * FROM redemptions ORDER BY id`);
  expect(rows.map((row) => row.code_last4)).toEqual(["1234", "1234", null, "STUV", null]);
  expect(rows.every((row) => row.code_fingerprint === null && row.idempotency_key === null)).toBe(true);
  expect(Object.keys(rows[0])).not.toContain("code_mask");
});
