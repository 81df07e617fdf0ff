// The supplier accounts' forms: each account's own, and one to add an account of each kind. Every
// kind's inputs come from its module (lib/suppliers/kinds/): one per setting, filled with the stored
// values when editing, and the secret inputs of a kind that takes one. saveSupplierAccount checks
// everything again; these only help the admin.
import type { SupplierAccountForm } from "@/lib/suppliers/manage-suppliers";
import { supplierKind, supplierKinds } from "@/lib/suppliers/kinds";
import type { SupplierKind } from "@/lib/suppliers/kinds/supplier-kind";
import { settingInputName, settingInputValue, type SettingsField } from "@/lib/suppliers/kinds/settings-fields";
import { GatedActionForm } from "../../_components/gated-action-form";
import { VersionField } from "../../_components/version-field";
import { saveSupplierAction } from "./actions";

export function SupplierAccountForms({ accounts }: { accounts: SupplierAccountForm[] }) {
  return (
    <section className="panel" aria-label="Supplier accounts">
      <h2>Supplier accounts</h2>
      {accounts.map((account) => (
        <div key={account.name} data-supplier-account={account.name}>
          <h3>
            {account.name} <span className="muted">{account.kind}</span>{" "}
            {account.hasSealedSecret ? <span className="badge good">sealed secret</span> : null}
          </h3>
          <GatedActionForm
            role="owner"
            action={saveSupplierAction}
            submitLabel="Save supplier"
            label={`Save supplier ${account.name}`}
            layout="stacked"
          >
            <input type="hidden" name="name" value={account.name} />
            <input type="hidden" name="kind" value={account.kind} />
            <VersionField updatedAt={account.updatedAt} />
            <KindFields
              kind={supplierKind(account.kind)}
              settings={account.settings}
              sealed={account.hasSealedSecret}
            />
          </GatedActionForm>
        </div>
      ))}
      {supplierKinds().map((kind) => (
        <div key={kind.name} data-add-supplier-kind={kind.name}>
          <h3>New {kind.name} supplier account</h3>
          <p className="muted small">{kind.description}</p>
          <GatedActionForm
            role="owner"
            action={saveSupplierAction}
            submitLabel="Add supplier"
            label={`Add ${kind.name} supplier`}
            layout="stacked"
          >
            <label>
              Name <input name="name" placeholder={`${kind.name}-backup`} size={20} />
            </label>
            <input type="hidden" name="kind" value={kind.name} />
            <KindFields kind={kind} settings={{}} sealed={false} />
          </GatedActionForm>
        </div>
      ))}
    </section>
  );
}

/** A kind's setting inputs and secret inputs; "clear" appears only when there is a sealed secret to clear. */
function KindFields({
  kind,
  settings,
  sealed,
}: {
  kind: SupplierKind | undefined;
  settings: Record<string, unknown>;
  sealed: boolean;
}) {
  if (!kind) return null;
  return (
    <>
      {kind.fields.map((field) => (
        <SettingInput key={field.name} field={field} value={settingInputValue(field, settings)} />
      ))}
      {kind.sealedSecret ? (
        <label>
          {sealed ? "New secret (empty: keep the sealed one)" : `Secret (${kind.name}, optional)`}{" "}
          <input name="secret" type="password" autoComplete="off" size={30} />
        </label>
      ) : null}
      {sealed ? (
        <label>
          <input type="checkbox" name="clearSecret" value="yes" /> Clear the sealed secret
        </label>
      ) : null}
    </>
  );
}

function SettingInput({ field, value }: { field: SettingsField; value: string | boolean }) {
  const name = settingInputName(field);
  const help = field.help ? <span className="muted small">{field.help}</span> : null;
  if (field.type === "boolean") {
    return (
      <div>
        <label>
          <input type="checkbox" name={name} value="yes" defaultChecked={value === true} /> {field.label}
        </label>{" "}
        {help}
      </div>
    );
  }
  return (
    <div>
      <label>
        {field.label}{" "}
        <input
          name={name}
          type={field.type === "url" ? "url" : "text"}
          inputMode={field.type === "integer" ? "numeric" : undefined}
          defaultValue={String(value)}
          placeholder={field.placeholder}
          size={field.type === "integer" ? 8 : 40}
        />
      </label>{" "}
      {help}
    </div>
  );
}
