"use server";
// The enrolment's two steps (page.tsx): the password again, which shows a new secret once, then a
// code from it, which turns two-factor on, shows the recovery codes once and stamps the session
// with the second factor. Only for a signed-in admin without two-factor.
import QRCode from "qrcode";
import { hasTwoFactor } from "@/lib/admin-users/admin-user-record";
import { confirmTwoFactorSetup } from "@/lib/admin-users/confirm-two-factor-setup";
import { proveSecondFactor } from "@/lib/admin-sign-in/prove-second-factor";
import { startTwoFactorEnrolment } from "@/lib/admin-sign-in/start-two-factor-enrolment";
import { actionClientIp } from "../_lib/auth-options";
import { NOT_SIGNED_IN, textField, type ActionState } from "../_lib/action-state";
import { readSignedInAdmin, type SignedInAdmin } from "../_lib/session";
import { stampSecondFactor } from "../_lib/session-token";

export type EnrolmentState = (NonNullable<ActionState> & { secret?: string; qrDataUrl?: string }) | null;

const ALREADY_ON: ActionState = { ok: false, message: "Two-factor is already on: continue to the dashboard." };

async function enrollingAdmin(): Promise<{ admin: SignedInAdmin } | { refusal: ActionState }> {
  const admin = await readSignedInAdmin();
  if (!admin) return { refusal: NOT_SIGNED_IN };
  if (hasTwoFactor(admin)) return { refusal: ALREADY_ON };
  return { admin };
}

function waitMessage(seconds: number): string {
  return `Too many failed attempts: wait ${seconds} seconds, then try again.`;
}

export async function startEnrolmentAction(_state: EnrolmentState, formData: FormData): Promise<EnrolmentState> {
  const gate = await enrollingAdmin();
  if ("refusal" in gate) return gate.refusal;
  const result = await startTwoFactorEnrolment({
    adminId: gate.admin.id,
    email: gate.admin.email,
    password: formData instanceof FormData ? String(formData.get("password") ?? "") : "",
    clientIp: await actionClientIp(),
  });
  switch (result.status) {
    case "wrong_password":
      return { ok: false, message: "Wrong password." };
    case "already_on":
      return ALREADY_ON;
    case "busy":
      return { ok: false, message: "The server is busy checking sign-ins. Try again in a moment." };
    case "throttled":
    case "locked":
    case "full":
      return { ok: false, message: waitMessage(result.retryAfterSeconds) };
    case "started": {
      const svg = await QRCode.toString(result.uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
      return {
        ok: true,
        message: "Add this secret to an authenticator app (scan the QR code, or type the key), then enter its code.",
        secret: result.secret,
        qrDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
      };
    }
  }
}

export async function confirmEnrolmentAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await enrollingAdmin();
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  const code = textField(formData, "code");
  const result = await proveSecondFactor(
    { adminId: admin.id, email: admin.email, clientIp: await actionClientIp() },
    async () => {
      const confirmed = await confirmTwoFactorSetup({ adminId: admin.id, code, actor: admin.actor });
      return confirmed.status === "enabled" ? confirmed.recoveryCodes : undefined;
    },
  );
  switch (result.status) {
    case "wrong_code":
      return {
        ok: false,
        message:
          "That code does not match the secret (or the set-up was restarted): check the app's clock and try a new code.",
      };
    case "throttled":
    case "locked":
    case "full":
      return { ok: false, message: waitMessage(result.retryAfterSeconds) };
    case "proved":
      await stampSecondFactor();
      return {
        ok: true,
        message:
          "Two-factor is on. Save these recovery codes now, they are shown only once; each signs in once without the app.",
        shownOnce: result.value,
      };
  }
}
