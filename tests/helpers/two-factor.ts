// Two-factor for tests: turn it on for an admin through the same lib functions the account page
// uses, and make TOTP codes the server will accept. The server accepts each time step once, within
// one step either side of now, so a code is made for the first step after the last one the admin
// used; when that is beyond the next step the helper waits for the clock to move on.
import { TOTP, Secret } from "otpauth";
import { startTwoFactorSetup } from "@/lib/admin-users/start-two-factor-setup";
import { readTwoFactorSetup } from "@/lib/admin-users/read-two-factor-setup";
import { confirmTwoFactorSetup } from "@/lib/admin-users/confirm-two-factor-setup";
import { adminActor } from "@/lib/admin-users/admin-user-record";
import { sqlRow } from "./db";

const PERIOD_MS = 30_000;

// The secrets enableTwoFactor turned on in this test file, by email: the sign-in helpers type a code
// from them, as every admin needs a second factor to reach the dashboard.
const secrets = new Map<string, string>();

/** The TOTP secret enableTwoFactor gave this admin in this test file, if any. */
export function knownTotpSecret(email: string): string | undefined {
  return secrets.get(email.trim().toLowerCase());
}

/** The six-digit code of `secret` for time step `step`. */
export function totpCodeAt(secret: string, step: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    timestamp: step * PERIOD_MS,
  });
}

function currentStep(): number {
  return Math.floor(Date.now() / PERIOD_MS);
}

/**
 * A code the server accepts for this admin now: the current step's, or the next one's when the current
 * one is used already; when both are used, waits until the clock reaches a step whose code is free.
 * With `previous`, the step before now is tried first (accepted too, unless the clock moves on before
 * the code is checked: only for a check made at once, which can try again).
 */
export async function freshTotpCode(
  email: string,
  secret: string,
  options: { previous?: boolean } = {},
): Promise<string> {
  const { totp_last_step: last } = await sqlRow<{ totp_last_step: number | null }>(
    `SELECT totp_last_step FROM admin_users WHERE email = lower(trim($1))`,
    [email],
  );
  const step = Math.max(currentStep() - (options.previous ? 1 : 0), (last ?? 0) + 1);
  while (step > currentStep() + 1) await new Promise((resolve) => setTimeout(resolve, 250));
  return totpCodeAt(secret, step);
}

/**
 * Turns two-factor on for the admin; resolves with the secret and the recovery codes. The set-up uses
 * the previous step's code when it can, leaving the current and the next step to two sign-ins.
 */
export async function enableTwoFactor(email: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { id } = await sqlRow<{ id: number }>(`SELECT id FROM admin_users WHERE email = lower(trim($1))`, [email]);
  const started = await startTwoFactorSetup(id);
  if (started.status !== "started") throw new Error(`two-factor set-up for ${email}: ${started.status}`);
  const setup = await readTwoFactorSetup(id);
  if (!setup) throw new Error(`no two-factor set-up for ${email}`);
  for (const previous of [true, false]) {
    const confirmed = await confirmTwoFactorSetup({
      adminId: id,
      code: await freshTotpCode(email, setup.secret, { previous }),
      actor: adminActor(email),
    });
    if (confirmed.status === "enabled") {
      secrets.set(email.trim().toLowerCase(), setup.secret);
      return { secret: setup.secret, recoveryCodes: confirmed.recoveryCodes };
    }
    // The clock passed a step boundary between making the previous step's code and checking it.
    if (confirmed.status !== "wrong_code" || !previous)
      throw new Error(`two-factor confirmation for ${email}: ${confirmed.status}`);
  }
  throw new Error("unreachable");
}
