// The holder's proof of a transfer (a photo, a document, or text) on one of their open requests: the
// one whose reference it names, else the latest. A newer proof replaces the older one.
import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import {
  DEPOSIT_FIELDS,
  MAX_PROOF_BYTES,
  MAX_PROOF_TEXT_LENGTH,
  toDepositRequest,
  type DepositRequest,
} from "./deposit-request";

export type DepositProof =
  | { kind: "text"; text: string }
  | { kind: "photo" | "document"; bytes: Uint8Array; fileName: string; mime: string; caption?: string | null };

export type AttachProofResult =
  { status: "attached"; deposit: DepositRequest } | { status: "no_open_request" } | { status: "too_large" };

/** A deposit reference in `text`, if it names one ("DEP-" and 8 characters). */
export function referenceIn(text: string | null | undefined): string | undefined {
  return /\bDEP-[A-Z0-9]{8}\b/i.exec(text ?? "")?.[0].toUpperCase();
}

export async function attachDepositProof(input: {
  accountId: number;
  proof: DepositProof;
  actor: string;
}): Promise<AttachProofResult> {
  const { proof } = input;
  if (proof.kind !== "text" && proof.bytes.byteLength > MAX_PROOF_BYTES) return { status: "too_large" };
  const named = referenceIn(proof.kind === "text" ? proof.text : proof.caption);
  return getPrisma().$transaction(async (tx) => {
    const target = await tx.depositRequest.findFirst({
      where: { accountId: input.accountId, status: "pending", ...(named ? { reference: named } : {}) },
      orderBy: { id: "desc" },
      select: { id: true },
    });
    if (!target) return { status: "no_open_request" as const };
    const text = proof.kind === "text" ? proof.text : (proof.caption ?? null);
    const row = await tx.depositRequest.update({
      // Still pending: a proof arriving as the request is decided changes nothing.
      where: { id: target.id, status: "pending" },
      data: {
        proofKind: proof.kind,
        proofText: text?.slice(0, MAX_PROOF_TEXT_LENGTH) ?? null,
        proofFileName: proof.kind === "text" ? null : proof.fileName.slice(0, 200),
        proofMime: proof.kind === "text" ? null : proof.mime.slice(0, 100),
        proofBytes: proof.kind === "text" ? null : Buffer.from(proof.bytes),
        proofAt: new Date(),
      },
      select: DEPOSIT_FIELDS,
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "deposit.proof",
        targetType: "deposit",
        targetId: row.id,
        details: { reference: row.reference, kind: proof.kind },
      },
      tx,
    );
    return { status: "attached" as const, deposit: toDepositRequest(row) };
  });
}
