// The codes a completed test order of a game-key or gift-card line delivers: made from the order's
// public id, the same on every read, worthless anywhere, and marked as test codes by their prefix.
// Test orders take nothing from stock (README: Test mode).
import crypto from "node:crypto";

const TEST_CODE_PREFIX = "TEST-";

export function testCodes(order: { publicId: string; quantity: number }): string[] {
  return Array.from({ length: order.quantity }, (_, index) => {
    const digest = crypto.createHash("sha256").update(`${order.publicId}:${index}`).digest("hex").toUpperCase();
    return `${TEST_CODE_PREFIX}${digest.slice(0, 4)}-${digest.slice(4, 8)}-${digest.slice(8, 12)}`;
  });
}
