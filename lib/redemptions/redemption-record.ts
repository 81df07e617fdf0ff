// A redeem attempt as POST /rdmbr's raw SQL reads it: Prisma's Redemption, the fields the
// idempotency checks and the answer use. Every statement returns REDEMPTION_RECORD_COLUMNS.
import type { Redemption } from "../generated/prisma/client";
import { selectList, type ColumnMap } from "../db/select-list";

export type RedemptionRecord = Pick<
  Redemption,
  "id" | "apiKeyId" | "playerId" | "codeFingerprint" | "outcome" | "nickname"
>;

const REDEMPTION_COLUMN_MAP: ColumnMap<RedemptionRecord> = {
  id: "id",
  apiKeyId: "api_key_id",
  playerId: "player_id",
  codeFingerprint: "code_fingerprint",
  outcome: "outcome",
  nickname: "nickname",
};

export const REDEMPTION_RECORD_COLUMNS = selectList(REDEMPTION_COLUMN_MAP);
