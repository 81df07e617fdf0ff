// The actions that restrict an account's access (ban, restrict, block its API), each undone by its
// counterpart; operators' alone, each confirmed.
import type { AccountRecord } from "@/lib/accounts/account-record";
import { GatedActionForm } from "../../../_components/gated-action-form";
import {
  banAccountAction,
  blockApiAction,
  liftRestrictionAction,
  restrictAccountAction,
  unbanAccountAction,
  unblockApiAction,
} from "./actions";

type Props = {
  account: AccountRecord;
  /** How the confirmations name the account. */
  name: string;
};

export function AccessActionsPanel({ account, restricted, name }: Props & { restricted: boolean }) {
  return (
    <section className="panel" aria-label="Access actions">
      <h2>Access</h2>
      <BanForm account={account} name={name} />
      <RestrictForms account={account} restricted={restricted} name={name} />
      <ApiBlockForm account={account} name={name} />
    </section>
  );
}

/** Ban, or unban a banned account. */
function BanForm({ account, name }: Props) {
  return account.bannedAt ? (
    <GatedActionForm
      role="operator"
      action={unbanAccountAction}
      submitLabel="Unban"
      confirm={`Lift the ban on ${name}? Its API keys work again.`}
      label="Unban"
    >
      <input type="hidden" name="accountId" value={account.id} />
    </GatedActionForm>
  ) : (
    <GatedActionForm
      role="operator"
      action={banAccountAction}
      submitLabel="Ban"
      tone="danger"
      confirm={`Ban ${name}? Every API call answers ACCOUNT_BANNED until unbanned.`}
      label="Ban"
    >
      <input type="hidden" name="accountId" value={account.id} />
      <input name="reason" placeholder="Reason (kept in the log)" maxLength={200} />
    </GatedActionForm>
  );
}

/** Restrict for a number of hours; lift a restriction still running. */
function RestrictForms({ account, restricted, name }: Props & { restricted: boolean }) {
  return (
    <>
      <GatedActionForm
        role="operator"
        action={restrictAccountAction}
        submitLabel="Restrict"
        confirm={`Restrict ${name}? API calls answer ACCOUNT_RESTRICTED until the time ends.`}
        label="Restrict"
      >
        <input type="hidden" name="accountId" value={account.id} />
        <input
          name="hours"
          type="number"
          min="0.25"
          max="720"
          step="0.25"
          defaultValue="24"
          aria-label="Hours"
          className="hours"
        />
        <span className="muted">hours</span>
        <input name="reason" placeholder="Reason" maxLength={200} />
      </GatedActionForm>
      {restricted ? (
        <GatedActionForm
          role="operator"
          action={liftRestrictionAction}
          submitLabel="Lift restriction"
          confirm={`Lift the restriction on ${name} now?`}
          label="Lift restriction"
        >
          <input type="hidden" name="accountId" value={account.id} />
        </GatedActionForm>
      ) : null}
    </>
  );
}

/** Block the account's API access, or unblock it. */
function ApiBlockForm({ account, name }: Props) {
  return account.apiDisabledByAdmin ? (
    <GatedActionForm
      role="operator"
      action={unblockApiAction}
      submitLabel="Unblock API access"
      confirm={`Unblock API access for ${name}?`}
      label="Unblock API access"
    >
      <input type="hidden" name="accountId" value={account.id} />
    </GatedActionForm>
  ) : (
    <GatedActionForm
      role="operator"
      action={blockApiAction}
      submitLabel="Block API access"
      tone="danger"
      confirm={`Block API access for ${name}? Calls answer API_DISABLED_BY_ADMIN; the holder cannot undo it.`}
      label="Block API access"
    >
      <input type="hidden" name="accountId" value={account.id} />
    </GatedActionForm>
  );
}
