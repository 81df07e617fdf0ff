import type { EligibilityRule } from "./setting-schemas";

/** Whether an account meets the API_ELIGIBILITY rule; a missing or disabled rule admits everyone. */
export function isAccountEligible(
  rule: EligibilityRule | undefined,
  account: { createdAt: Date; totalCreditedCents: number },
  now: number = Date.now(),
): boolean {
  if (!rule?.enabled) return true;
  if (rule.minTotalCreditedCents !== undefined && account.totalCreditedCents < rule.minTotalCreditedCents) return false;
  if (rule.minAccountAgeHours !== undefined && now - account.createdAt.getTime() < rule.minAccountAgeHours * 3_600_000)
    return false;
  return true;
}
