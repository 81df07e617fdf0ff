// Your account: the signed-in admin's role and two-factor sign-in. Setting up shows a new secret as
// a QR code (an image rendered here, no script) and as text; a code from it turns two-factor on.
import QRCode from "qrcode";
import { hasTwoFactor } from "@/lib/admin-users/admin-user-record";
import { readTwoFactorSetup } from "@/lib/admin-users/read-two-factor-setup";
import { countUnusedRecoveryCodes } from "@/lib/admin-users/count-unused-recovery-codes";
import { requireAdminPage } from "../../_lib/session";
import { formatTime } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import {
  confirmTwoFactorSetupAction,
  regenerateRecoveryCodesAction,
  startTwoFactorSetupAction,
  turnOffTwoFactorAction,
} from "./actions";
import { TelegramLink } from "./telegram-link";

export const metadata = { title: "Your account · Top-up operations" };

export default async function AccountPage() {
  const admin = await requireAdminPage();
  const on = hasTwoFactor(admin);
  const [setup, recoveryLeft] = await Promise.all([
    on ? undefined : readTwoFactorSetup(admin.id),
    on ? countUnusedRecoveryCodes(admin.id) : 0,
  ]);
  const qr = setup ? await QRCode.toString(setup.uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" }) : "";
  return (
    <>
      <h1>Your account</h1>
      <section className="panel" aria-label="Account">
        <p>
          <strong>{admin.email}</strong> · role <strong data-testid="own-role">{admin.role}</strong>
          <br />
          <span className="muted small">
            Last sign-in {formatTime(admin.lastLoginAt)}. Viewers read every page; operators also settle orders, flip
            switches and change account states; owners also manage the catalog, suppliers and admins (with two-factor
            on).
          </span>
        </p>
      </section>

      <section className="panel" aria-label="Two-factor sign-in">
        <h2>Two-factor sign-in</h2>
        {on ? (
          <>
            <p data-testid="two-factor-state">
              <span className="badge good">on</span> since {formatTime(admin.totpEnabledAt)}. Sign-in asks for a code
              from your authenticator app, or one of your recovery codes ({recoveryLeft} unused).
            </p>
            <ActionForm
              action={regenerateRecoveryCodesAction}
              submitLabel="New recovery codes"
              confirm="Replace your recovery codes? The old ones stop working; the new ones are shown once."
              label="New recovery codes"
            >
              <label>
                Current code <input name="code" autoComplete="one-time-code" size={20} maxLength={24} required />
              </label>
            </ActionForm>
            <ActionForm
              action={turnOffTwoFactorAction}
              submitLabel="Turn two-factor off"
              tone="danger"
              confirm="Turn two-factor off? The dashboard then opens only its two-factor set-up until you set it up again."
              label="Turn two-factor off"
            >
              <label>
                Password <input name="password" type="password" autoComplete="current-password" required />
              </label>{" "}
              <label>
                Current code or a recovery code{" "}
                <input name="code" autoComplete="one-time-code" size={20} maxLength={24} required />
              </label>
            </ActionForm>
            <p className="muted small">
              Wrong codes and passwords here count with wrong codes at sign-in: ten within 15 minutes lock the
              two-factor step for 15 minutes and the owners are told in the bot.
            </p>
          </>
        ) : (
          <>
            <p data-testid="two-factor-state">
              <span className="badge bad">off</span> Sign-in asks for your password only.
              {admin.role === "owner" ? " Owner actions are refused until it is on." : ""}
            </p>
            {setup ? (
              <div className="two-factor-setup">
                <p>
                  Add this secret to an authenticator app (scan the QR code, or type the key), then enter the six-digit
                  code it shows.
                </p>
                {/* A data: URL of the SVG: the page's CSP allows data: images, and no markup is injected. */}
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img
                  className="qr"
                  src={`data:image/svg+xml;base64,${Buffer.from(qr).toString("base64")}`}
                  alt="QR code of the two-factor secret"
                  width={200}
                  height={200}
                />
                <p>
                  Key: <code data-testid="totp-secret">{setup.secret}</code>
                </p>
                <ActionForm
                  action={confirmTwoFactorSetupAction}
                  submitLabel="Turn two-factor on"
                  label="Confirm two-factor"
                >
                  <label>
                    Code{" "}
                    <input
                      name="code"
                      inputMode="numeric"
                      autoComplete="one-time-code"
                      size={8}
                      maxLength={8}
                      required
                    />
                  </label>
                </ActionForm>
              </div>
            ) : null}
            <ActionForm
              action={startTwoFactorSetupAction}
              submitLabel={setup ? "Start again with a new secret" : "Set up two-factor"}
              label="Set up two-factor"
            />
          </>
        )}
      </section>

      <TelegramLink admin={admin} />
    </>
  );
}
