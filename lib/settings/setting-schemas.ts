// The runtime settings of the `settings` table (key text, value jsonb, updated_by, updated_at).
import { z } from "zod";

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
