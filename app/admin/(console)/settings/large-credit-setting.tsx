// Settings → Large credits: the amount above which a credit made in the bot needs a second admin to
// approve it (four eyes on money), with who set it and when. Owners change it.
import { readLargeCreditThreshold } from "@/lib/settings/read-large-credit-threshold";
import { MAX_ADJUSTMENT_CENTS } from "@/lib/money/parse-usd";
import { formatTime, formatUsd } from "../../_lib/format";
import { GatedActionForm } from "../../_components/gated-action-form";
import { VersionField } from "../../_components/version-field";
import { NEVER_SAVED } from "@/lib/db/edit-version";
import { setLargeCreditThresholdAction } from "./large-credit-actions";

export async function LargeCreditSetting() {
  const threshold = await readLargeCreditThreshold();
  const cents = threshold.value;
  return (
    <section className="panel" aria-label="Large credits">
      <h2>Large credits</h2>
      <p className="muted" data-testid="large-credit-threshold">
        A credit in the bot (<code>/credit</code>) above <strong>{formatUsd(cents)}</strong> needs a second admin: the
        other linked admins who may credit get Approve / Reject, the first to press decides, and the admin who asked
        cannot approve it. {cents === 0 ? "Now every credit needs one. " : ""}
        {cents >= MAX_ADJUSTMENT_CENTS ? "Now no credit can be that large, so none needs one. " : ""}
        {threshold.updatedBy
          ? `Last changed by ${threshold.updatedBy} at ${formatTime(threshold.updatedAt)}.`
          : "Never changed (the default)."}
      </p>
      <GatedActionForm
        role="owner"
        action={setLargeCreditThresholdAction}
        submitLabel="Save amount"
        confirm="Save this amount? Credits above it will need a second admin's approval."
        label="Large credit amount"
      >
        <VersionField updatedAt={threshold.updatedAt ?? NEVER_SAVED} />
        <label>
          above $
          <input name="aboveUsd" defaultValue={(cents / 100).toFixed(2)} size={10} inputMode="decimal" required />
        </label>
      </GatedActionForm>
    </section>
  );
}
