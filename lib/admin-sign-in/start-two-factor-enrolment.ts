// The first step of the enrolment a signed-in admin without two-factor must complete before any
// dashboard page: the password again (checked as sign-in checks it, throttled and queued), then a
// new pending secret to add to an authenticator app. A stolen session cookie alone never sees it.
import { startTwoFactorSetup } from "../admin-users/start-two-factor-setup";
import { readTwoFactorSetup } from "../admin-users/read-two-factor-setup";
import { signInAdmin } from "./sign-in-admin";

export type StartTwoFactorEnrolmentResult =
  | { status: "started"; secret: string; uri: string }
  | { status: "wrong_password" }
  | { status: "already_on" }
  | { status: "throttled" | "locked" | "full"; retryAfterSeconds: number }
  | { status: "busy" };

export async function startTwoFactorEnrolment(input: {
  adminId: number;
  email: string;
  password: string;
  clientIp: string;
}): Promise<StartTwoFactorEnrolmentResult> {
  const checked = await signInAdmin({ email: input.email, password: input.password, clientIp: input.clientIp });
  switch (checked.status) {
    case "busy":
      return checked;
    case "throttled":
    case "locked":
    case "full":
      return { status: checked.status, retryAfterSeconds: checked.retryAfterSeconds };
    case "second_factor_locked":
      return { status: "locked", retryAfterSeconds: checked.retryAfterSeconds };
    case "wrong_credentials":
      return { status: "wrong_password" };
    case "signed_in":
      break;
  }
  if (checked.admin.id !== input.adminId) return { status: "wrong_password" };
  const started = await startTwoFactorSetup(input.adminId);
  if (started.status === "already_on") return { status: "already_on" };
  const setup = started.status === "started" ? await readTwoFactorSetup(input.adminId) : undefined;
  return setup ? { status: "started", ...setup } : { status: "wrong_password" };
}
