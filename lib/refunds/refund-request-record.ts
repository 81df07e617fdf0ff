// A refund request as the invoice, the webhook events and the dashboard read it (RefundRequest in
// the OpenAPI document), and the row it is built from.
import type { RefundRequest } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import { centsToUsd } from "../money/cents-to-usd";

export type RefundRequestRecord = BigintsAsNumbers<
  Pick<
    RefundRequest,
    "id" | "orderId" | "reason" | "status" | "refundCents" | "decisionNote" | "decidedAt" | "createdAt"
  >
>;

export function toRefundRequestView(request: RefundRequestRecord) {
  return {
    status: request.status,
    reason: request.reason,
    requestedAt: request.createdAt.toISOString(),
    ...(request.decidedAt ? { decidedAt: request.decidedAt.toISOString() } : {}),
    ...(request.refundCents !== null ? { refundedUsd: centsToUsd(request.refundCents) } : {}),
    ...(request.decisionNote ? { note: request.decisionNote } : {}),
  };
}
