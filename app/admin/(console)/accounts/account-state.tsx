// The states of an account that decide what its API calls answer, as badges.
import type { AccountRecord } from "@/lib/accounts/account-record";
import { formatTime } from "../../_lib/format";

export function AccountStateBadges({ account, now = new Date() }: { account: AccountRecord; now?: Date }) {
  const badges: { text: string; tone: string; title?: string }[] = [];
  if (account.bannedAt) badges.push({ text: "banned", tone: "bad", title: account.banReason ?? undefined });
  if (account.restrictedUntil && account.restrictedUntil > now) {
    badges.push({
      text: `restricted until ${formatTime(account.restrictedUntil)}`,
      tone: "warn",
      title: account.restrictReason ?? undefined,
    });
  }
  if (account.apiDisabledByAdmin) badges.push({ text: "API blocked by admin", tone: "bad" });
  if (!account.apiEnabled) badges.push({ text: "API off (holder)", tone: "" });
  if (badges.length === 0) badges.push({ text: "active", tone: "good" });
  return (
    <>
      {badges.map((badge) => (
        <span key={badge.text} className={`badge state ${badge.tone}`} title={badge.title}>
          {badge.text}
        </span>
      ))}
    </>
  );
}
