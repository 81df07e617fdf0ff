// Your account → Telegram: which Telegram account the bot treats as this admin (with this admin's
// role), a one-time code to link one (sent to the bot as /link <code>), and unlinking.
import { readTelegramLink } from "@/lib/admin-users/read-telegram-link";
import { LINK_CODE_TTL_MINUTES } from "@/lib/admin-users/telegram-link-code";
import type { SignedInAdmin } from "../../_lib/session";
import { formatTime } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import { issueTelegramLinkCodeAction, unlinkTelegramAction } from "./telegram-link-actions";

export async function TelegramLink({ admin }: { admin: SignedInAdmin }) {
  const link = await readTelegramLink(admin.id);
  return (
    <section className="panel" aria-label="Telegram">
      <h2>Telegram</h2>
      <p className="muted small">
        The bot&apos;s admin commands work from the Telegram account linked here, with your role ({admin.role}): the
        same actions the dashboard allows you. Large credits also need a second admin to approve them.
      </p>
      {link ? (
        <>
          <p data-testid="telegram-link-state">
            <span className="badge good">linked</span> Telegram user <code>{link.telegramId}</code> since{" "}
            {formatTime(link.linkedAt)}.
          </p>
          <ActionForm
            action={unlinkTelegramAction}
            submitLabel="Unlink Telegram"
            tone="danger"
            confirm="Unlink this Telegram account? The bot stops treating it as an admin at once."
            label="Unlink Telegram"
          />
        </>
      ) : (
        <p data-testid="telegram-link-state">
          <span className="badge">not linked</span> Get a code, then send <code>/link &lt;code&gt;</code> to the bot
          from your Telegram account within {LINK_CODE_TTL_MINUTES} minutes.
        </p>
      )}
      <ActionForm
        action={issueTelegramLinkCodeAction}
        submitLabel={link ? "Link another Telegram account" : "Get a link code"}
        label="Telegram link code"
      />
    </section>
  );
}
