import { expect } from "vitest";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { api, type ApiResult } from "./api";
import { sqlRow } from "./db";

let sequence = 0;
export function newTrxid(prefix = "trx"): string {
  return `${prefix}-${Date.now().toString(36)}-${++sequence}`;
}

export function order(key: string, body: Record<string, unknown>): Promise<ApiResult> {
  return api("/orders", { key, body });
}

export async function expectBooksBalance(): Promise<void> {
  expect(await checkLedger()).toEqual([]);
}

/** The supplier's reference as the worker's settlement stored it with the order. */
export async function storedSupplierRef(publicId: string): Promise<string | null> {
  const row = await sqlRow(`SELECT supplier_ref FROM orders WHERE public_id = $1`, [publicId]);
  return row.supplier_ref;
}
