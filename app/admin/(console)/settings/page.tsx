// Settings: the MAINTENANCE and API_ORDER_DISABLED switches with who changed them and when, and
// the rule an account must meet to use the API.
import { readEligibilityRuleState, readSwitchStates, type SettingState } from "@/lib/settings/read-switch-states";
import { SWITCH_NAMES, type EligibilityRule, type SwitchName } from "@/lib/settings/setting-schemas";
import { requireAdminPage } from "../../_lib/session";
import { formatTime, formatUsd } from "../../_lib/format";
import { GatedActionForm } from "../../_components/gated-action-form";
import { VersionField } from "../../_components/version-field";
import { NEVER_SAVED } from "@/lib/db/edit-version";
import { setEligibilityRuleAction, setSwitchAction } from "./actions";
import { LargeCreditSetting } from "./large-credit-setting";

export const metadata = { title: "Settings · Top-up operations" };

const SWITCH_EFFECT: Record<SwitchName, string> = {
  MAINTENANCE: "New orders answer 503 MAINTENANCE; reads keep working. For planned work on the service.",
  API_ORDER_DISABLED: "New orders answer 503 API_ORDER_DISABLED; reads keep working. To stop selling for a while.",
};

export default async function SettingsPage() {
  await requireAdminPage();
  const [switches, eligibility] = await Promise.all([readSwitchStates(), readEligibilityRuleState()]);
  return (
    <>
      <h1>Settings</h1>
      <section className="panel" aria-label="Switches">
        <h2>Switches</h2>
        {SWITCH_NAMES.map((name) => (
          <SwitchRow key={name} name={name} state={switches[name]} />
        ))}
      </section>

      <EligibilityPanel eligibility={eligibility} />

      <LargeCreditSetting />
    </>
  );
}

function SwitchRow({ name, state }: { name: SwitchName; state: SettingState<boolean> }) {
  return (
    <div className="switch-row" data-switch={name} data-on={String(state.value)}>
      <div>
        <strong className="mono">{name}</strong>{" "}
        <span className={`badge ${state.value ? "bad" : "good"}`}>{state.value ? "ON" : "off"}</span>
        <br />
        <span className="muted">{SWITCH_EFFECT[name]}</span>
        <br />
        <span className="muted small" data-testid="changed-by">
          {state.updatedBy
            ? `Last changed by ${state.updatedBy} at ${formatTime(state.updatedAt)}`
            : "Never changed (off by default)"}
        </span>
      </div>
      <GatedActionForm
        role="operator"
        action={setSwitchAction}
        submitLabel={state.value ? `Turn ${name} off` : `Turn ${name} on`}
        tone={state.value ? "primary" : "danger"}
        confirm={
          state.value ? `Turn ${name} off? New orders are accepted again.` : `Turn ${name} on? ${SWITCH_EFFECT[name]}`
        }
        label={`Switch ${name}`}
      >
        <input type="hidden" name="name" value={name} />
        <input type="hidden" name="on" value={String(!state.value)} />
      </GatedActionForm>
    </div>
  );
}

function EligibilityPanel({ eligibility }: { eligibility: SettingState<EligibilityRule> }) {
  const rule = eligibility.value;
  return (
    <section className="panel" aria-label="API eligibility">
      <h2>API eligibility rule</h2>
      <p className="muted">
        When enabled, an account may use the API only once it meets every minimum set here; otherwise calls answer 403
        API_NOT_ELIGIBLE. Currently: <strong>{rule.enabled ? "enabled" : "disabled"}</strong>
        {rule.enabled && rule.minTotalCreditedCents !== undefined
          ? `, credited at least ${formatUsd(rule.minTotalCreditedCents)}`
          : ""}
        {rule.enabled && rule.minAccountAgeHours !== undefined
          ? `, account at least ${rule.minAccountAgeHours} h old`
          : ""}
        .{" "}
        {eligibility.updatedBy
          ? `Last changed by ${eligibility.updatedBy} at ${formatTime(eligibility.updatedAt)}.`
          : "Never changed."}
      </p>
      <GatedActionForm
        role="operator"
        action={setEligibilityRuleAction}
        submitLabel="Save rule"
        confirm="Save this eligibility rule? It applies to every API call within seconds."
        label="Eligibility rule"
      >
        <VersionField updatedAt={eligibility.updatedAt ?? NEVER_SAVED} />
        <label>
          <input type="checkbox" name="enabled" defaultChecked={rule.enabled} /> enabled
        </label>
        <label>
          credited at least $
          <input
            name="minTotalCreditedUsd"
            defaultValue={rule.minTotalCreditedCents !== undefined ? (rule.minTotalCreditedCents / 100).toFixed(2) : ""}
            size={8}
            inputMode="decimal"
          />
        </label>
        <label>
          account age at least
          <input
            name="minAccountAgeHours"
            defaultValue={rule.minAccountAgeHours ?? ""}
            size={5}
            inputMode="decimal"
          />{" "}
          hours
        </label>
      </GatedActionForm>
    </section>
  );
}
