// The inputs of the line and pack forms, filled with the current values when editing. The lib
// functions (save-game-line.ts, save-pack.ts) validate everything again; these only help the admin.
import { formatRequiredFieldsText, formatServerIdOptionsText } from "@/lib/catalog/catalog-fields";
import { isStockKind, type CatalogLineWithStock, type CatalogProductWithStock } from "@/lib/catalog/list-catalog-with-stock";

/** A line's fields; kind and code are sent as fixed values once the line has packs. */
export function LineFormFields({ line }: { line?: CatalogLineWithStock }) {
  const fixed = line !== undefined && line.products.length > 0;
  return (
    <>
      <div className="row">
        <label>
          Slug <input name="slug" required defaultValue={line?.slug} placeholder="br" size={12} />
        </label>
        <label>
          Code{" "}
          {fixed ? (
            <input name="code" readOnly defaultValue={line.code} size={3} />
          ) : (
            <input name="code" required defaultValue={line?.code} placeholder="BR" size={3} maxLength={2} />
          )}
        </label>
        <label>
          Kind{" "}
          {fixed ? (
            <>
              <input type="hidden" name="kind" value={line.kind} />
              <span className="mono">{line.kind}</span>
            </>
          ) : (
            <select name="kind" defaultValue={line?.kind ?? "topup"}>
              <option value="topup">topup</option>
              <option value="gamekey">gamekey</option>
              <option value="giftcard">giftcard</option>
            </select>
          )}
        </label>
        <label>
          Supplier account <input name="supplier" defaultValue={line?.supplier ?? "sandbox"} size={12} />
        </label>
      </div>
      <div className="row">
        <label>
          Game name <input name="gameName" required defaultValue={line?.gameName} size={24} />
        </label>
        <label>
          Product name <input name="productName" required defaultValue={line?.productName} size={32} />
        </label>
        <label>
          <input type="checkbox" name="orderable" value="true" defaultChecked={line?.orderable ?? true} /> Takes orders
        </label>
        <label>
          <input type="checkbox" name="available" value="true" defaultChecked={line?.available ?? true} /> Listed
        </label>
      </div>
      <label>
        Required fields (top-ups: one per line, <code>userId: Player ID</code>; also zoneId, serverId)
        <textarea
          name="requiredFields"
          defaultValue={line ? formatRequiredFieldsText(line.requiredFields) : ""}
          placeholder="userId: Player ID"
        />
      </label>
      <label>
        Server options (when serverId is required: one per line, <code>value | Label | alias, alias</code>)
        <textarea
          name="serverIdOptions"
          defaultValue={line ? formatServerIdOptionsText(line.serverIdOptions) : ""}
          placeholder="asia | Asia | AS"
        />
      </label>
    </>
  );
}

function usd(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** A pack's fields: the SKU on top-ups, the stock rule on code-delivered packs. */
export function PackFormFields({ line, product }: { line: CatalogLineWithStock; product?: CatalogProductWithStock }) {
  return (
    <div className="row">
      <label>
        Catalog id{" "}
        {product ? (
          <input name="catalogId" readOnly defaultValue={product.catalogId} size={14} />
        ) : (
          <input name="catalogId" required placeholder={`SVC${line.code}…`} size={14} />
        )}
      </label>
      <label>
        Name <input name="packName" required defaultValue={product?.packName} size={20} />
      </label>
      <label>
        Price (USD){" "}
        <input
          name="price"
          required
          inputMode="decimal"
          defaultValue={product ? usd(product.priceCents) : ""}
          size={8}
        />
      </label>
      {isStockKind(line.kind) ? (
        <label>
          Stock alert below{" "}
          <input
            name="stockAlertBelow"
            inputMode="numeric"
            defaultValue={product?.stockAlertBelow ?? ""}
            size={5}
            placeholder="none"
          />
        </label>
      ) : (
        <label>
          Supplier SKU <input name="supplierSku" required defaultValue={product?.supplierSku ?? ""} size={12} />
        </label>
      )}
      <label>
        <input type="checkbox" name="active" value="true" defaultChecked={product?.active ?? true} /> Enabled
      </label>
    </div>
  );
}
