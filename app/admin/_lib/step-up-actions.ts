"use server";
// The step-up: a signed-in admin proves the second factor again, and the session is re-stamped with
// the time, for the money and admin changes that need it within the step-up window. The code is
// checked here, on the server, behind the sign-in throttle, and used up like a sign-in code.
import { checkSecondFactor } from "@/lib/admin-users/check-second-factor";
import { proveSecondFactor } from "@/lib/admin-sign-in/prove-second-factor";
import { actionClientIp } from "./auth-options";
import { NEEDS_SECOND_FACTOR_SESSION, NOT_SIGNED_IN, textField, type ActionState } from "./action-state";
import { dashboardOpen, readSignedInAdmin } from "./session";
import { stampSecondFactor } from "./session-token";

export async function stepUpAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const admin = await readSignedInAdmin();
  if (!admin) return NOT_SIGNED_IN;
  if (!dashboardOpen(admin)) return NEEDS_SECOND_FACTOR_SESSION;
  const code = textField(formData, "code");
  const result = await proveSecondFactor(
    { adminId: admin.id, email: admin.email, clientIp: await actionClientIp() },
    (tx) => (code ? checkSecondFactor(admin.id, code, tx) : Promise.resolve(undefined)),
  );
  switch (result.status) {
    case "wrong_code":
      return { ok: false, stepUp: true, message: "Wrong or used code: try a new one." };
    case "throttled":
    case "locked":
    case "full":
      return {
        ok: false,
        stepUp: true,
        message: `Too many failed attempts: wait ${result.retryAfterSeconds} seconds, then try again.`,
      };
    case "proved":
      if (!(await stampSecondFactor())) return NOT_SIGNED_IN;
      return { ok: true, message: "Code accepted for 15 minutes: submit the change again." };
  }
}
