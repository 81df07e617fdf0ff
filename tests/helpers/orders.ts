import { expect } from "vitest";
import { checkLedger } from "@/lib/wallet/check-ledger";
import { api, type ApiResult } from "./api";

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
