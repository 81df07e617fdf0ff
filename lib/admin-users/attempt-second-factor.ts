// Wrong second-factor codes counted per admin, from any number of sources: after SECOND_FACTOR_LOCK
// wrong ones within its window the admin's second step is locked (nothing is checked, a right code
// is refused too) until the window has passed since the last of them, and the owners are told in
// the bot. Only someone with the password reaches a second step, so nobody can lock an admin out
// without it. Counted in PostgreSQL under a per-admin lock: every web instance sees the same count.
import { getPrisma, type PrismaTx } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { addNotifyOwnersJob } from "../telegram/sql/add-notify-owners-job";
import { lockSecondFactor } from "./sql/lock-second-factor";

export const SECOND_FACTOR_LOCK = { maxWrong: 10, windowMs: 15 * 60_000 } as const;

export type SecondFactorAttempt<T> =
  { status: "right"; value: T } | { status: "wrong" } | { status: "locked"; retryAfterSeconds: number };

/**
 * Runs `check` (which answers undefined for a wrong code) unless the admin's second step is locked,
 * and counts a wrong answer against the admin, from `source` (an IPv4 address or an IPv6 /64).
 * Pass `outer` to count in the caller's transaction.
 */
export async function attemptSecondFactor<T>(
  input: { adminId: number; source: string },
  check: (tx: PrismaTx) => Promise<T | undefined>,
  outer?: PrismaTx,
): Promise<SecondFactorAttempt<T>> {
  const { maxWrong, windowMs } = SECOND_FACTOR_LOCK;
  const attempt = async (tx: PrismaTx): Promise<SecondFactorAttempt<T>> => {
    const now = await lockSecondFactor(tx, input.adminId);
    const since = new Date(now.getTime() - windowMs);
    await tx.adminSecondFactorFailure.deleteMany({ where: { adminUserId: input.adminId, failedAt: { lte: since } } });
    const recent = await tx.adminSecondFactorFailure.findMany({
      where: { adminUserId: input.adminId },
      select: { failedAt: true, source: true, tripped: true },
    });
    const trip = recent.find((failure) => failure.tripped);
    if (trip) {
      const retryAfterMs = trip.failedAt.getTime() + windowMs - now.getTime();
      return { status: "locked", retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    }
    const value = await check(tx);
    if (value !== undefined) return { status: "right", value };
    const tripped = recent.length + 1 >= maxWrong;
    await tx.adminSecondFactorFailure.create({
      data: { adminUserId: input.adminId, failedAt: now, source: input.source, tripped },
    });
    if (tripped) await recordLock(tx, input.adminId, [...recent.map((f) => f.source), input.source], now);
    return { status: "wrong" };
  };
  return outer ? attempt(outer) : getPrisma().$transaction(attempt);
}

/** Audits the lock and queues the owners' message, in the transaction that locked. */
async function recordLock(tx: PrismaTx, adminId: number, sources: string[], now: Date): Promise<void> {
  const admin = await tx.adminUser.findUniqueOrThrow({ where: { id: adminId }, select: { email: true } });
  const lockedUntil = new Date(now.getTime() + SECOND_FACTOR_LOCK.windowMs);
  const distinct = new Set(sources).size;
  await recordAuditEntry(
    {
      actor: "system",
      action: "admin_user.second_factor_locked",
      targetType: "admin_user",
      targetId: adminId,
      details: {
        email: admin.email,
        wrongCodes: sources.length,
        sources: distinct,
        lockedUntil: lockedUntil.toISOString(),
      },
    },
    tx,
  );
  await addNotifyOwnersJob(
    tx,
    `🔒 ${admin.email}: ${sources.length} wrong two-factor codes within ${SECOND_FACTOR_LOCK.windowMs / 60_000} minutes, ` +
      `from ${distinct} ${distinct === 1 ? "source" : "sources"}. Their second step is locked until ` +
      `${lockedUntil.toISOString().slice(0, 16).replace("T", " ")} UTC. Whoever sent them knows the password: ` +
      `if it was not ${admin.email}, disable the admin on the dashboard's Admins page and have the password changed.`,
  );
}
