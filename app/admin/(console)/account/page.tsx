// Your account: the signed-in admin's role, two-factor and Telegram link. Two-factor is always on
// here (the console opens only to an enrolled admin, app/admin/two-factor-setup sets it up): this
// page replaces the recovery codes or turns it off, which sends the admin back to the enrolment.
import { countUnusedRecoveryCodes } from "@/lib/admin-users/count-unused-recovery-codes";
import { requireAdminPage } from "../../_lib/session";
import { formatTime } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import { regenerateRecoveryCodesAction, turnOffTwoFactorAction } from "./actions";
import { TelegramLink } from "./telegram-link";

export const metadata = { title: "Your account · Top-up operations" };

export default async function AccountPage() {
  const admin = await requireAdminPage();
  const recoveryLeft = await countUnusedRecoveryCodes(admin.id);
  return (
    <>
      <h1>Your account</h1>
      <section className="panel" aria-label="Account">
        <p>
          <strong>{admin.email}</strong> · role <strong data-testid="own-role">{admin.role}</strong>
          <br />
          <span className="muted small">
            Last sign-in {formatTime(admin.lastLoginAt)}. Viewers read every page; operators also settle orders, flip
            switches and change account states; owners also manage the catalog, suppliers and admins.
          </span>
        </p>
      </section>

      <section className="panel" aria-label="Two-factor sign-in">
        <h2>Two-factor sign-in</h2>
        <p data-testid="two-factor-state">
          <span className="badge good">on</span> since {formatTime(admin.totpEnabledAt)}. Sign-in asks for a code from
          your authenticator app, or one of your recovery codes ({recoveryLeft} unused).
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
          Wrong codes and passwords here count with wrong codes at sign-in: ten within 15 minutes lock the two-factor
          step for 15 minutes and the owners are told in the bot.
        </p>
      </section>

      <TelegramLink admin={admin} />
    </>
  );
}
