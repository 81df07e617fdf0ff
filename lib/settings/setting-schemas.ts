// The runtime settings of the `settings` table (key text, value jsonb, updated_by, updated_at).
import { z } from "zod";
import { MAX_ADJUSTMENT_CENTS } from "../money/parse-usd";

export const SWITCH_NAMES = ["MAINTENANCE", "API_ORDER_DISABLED"] as const;
export type SwitchName = (typeof SWITCH_NAMES)[number];
export const ELIGIBILITY_KEY = "API_ELIGIBILITY";

/** API_ELIGIBILITY: when enabled, an account needs every stated minimum to use the API. Absent = disabled. */
export const eligibilityRuleSchema = z.strictObject({
  enabled: z.boolean(),
  minTotalCreditedCents: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  minAccountAgeHours: z
    .number()
    .nonnegative()
    .max(100 * 365 * 24)
    .optional(),
});
export type EligibilityRule = z.infer<typeof eligibilityRuleSchema>;

export const DISABLED_ELIGIBILITY: EligibilityRule = Object.freeze({ enabled: false });

/**
 * LARGE_CREDIT_APPROVAL_CENTS: a credit above this many cents needs a second admin's approval (owners
 * set it). 0: every credit does; the largest credit (MAX_ADJUSTMENT_CENTS): none does.
 */
export const LARGE_CREDIT_KEY = "LARGE_CREDIT_APPROVAL_CENTS";
export const largeCreditThresholdSchema = z.number().int().min(0).max(MAX_ADJUSTMENT_CENTS);
/** Until an owner sets it: credits above $1,000.00 take two admins. */
export const DEFAULT_LARGE_CREDIT_CENTS = 100_000;
