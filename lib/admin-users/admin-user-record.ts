// The admin as the dashboard's session and pages see it. The password hash and the two-factor
// secrets never leave lib/.
import type { AdminUser } from "../generated/prisma/client";

export type AdminUserRecord = Omit<AdminUser, "passwordHash" | "totpSecret" | "totpPendingSecret" | "totpLastStep">;

/** The Prisma select of an AdminUserRecord: every column but the password hash and the secrets. */
export const ADMIN_USER_SELECT = {
  id: true,
  email: true,
  role: true,
  disabled: true,
  createdAt: true,
  lastLoginAt: true,
  totpEnabledAt: true,
  sessionsValidFrom: true,
} as const;

/** Whether the admin signs in with a second factor (a TOTP code or a recovery code). */
export function hasTwoFactor(admin: Pick<AdminUserRecord, "totpEnabledAt">): boolean {
  return admin.totpEnabledAt !== null;
}

/** Emails are compared lower-cased and trimmed: "Ops@Example.com " and "ops@example.com" are one admin. */
export function normaliseAdminEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Deliberately plain: one "@", something on each side, a dot in the domain, no spaces.
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export function isPlausibleEmail(email: string): boolean {
  return EMAIL_PATTERN.test(email) && email.length <= 254;
}

/** The audit-log actor of a dashboard action. */
export function adminActor(email: string): string {
  return `admin:${email}`;
}
