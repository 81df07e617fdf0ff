"use server";
// Price tier actions: create, rename and remove a tier, set or drop a pack's price in it. Owners
// only (prices are the owner's). Each checks the session itself and is audited by its lib function
// with the admin's email, in the change's transaction.
import { revalidatePath } from "next/cache";
import { createPriceTier } from "@/lib/pricing/create-price-tier";
import { renamePriceTier } from "@/lib/pricing/rename-price-tier";
import { removePriceTier } from "@/lib/pricing/remove-price-tier";
import { setTierPackPrice } from "@/lib/pricing/set-tier-pack-price";
import { parseTierRule } from "@/lib/pricing/price-tier-rules";
import {
  idField,
  isConfirmed,
  NOT_CONFIRMED,
  textField,
  versionField,
  type ActionState,
} from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

const TIERS = "/admin/tiers";
const NO_TIER_GIVEN: ActionState = { ok: false, message: "No tier given." };

const answer = (result: { status: "saved" | "refused"; message: string }): ActionState => ({
  ok: result.status === "saved",
  message: result.message,
});

export async function createPriceTierAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const result = await createPriceTier({ name: textField(formData, "name"), actor: gate.admin.actor });
  revalidatePath(TIERS);
  return answer(result);
}

export async function renamePriceTierAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  const tierId = idField(formData, "tierId");
  if (tierId === undefined) return NO_TIER_GIVEN;
  const result = await renamePriceTier({
    tierId,
    name: textField(formData, "name"),
    version: versionField(formData),
    actor: gate.admin.actor,
  });
  revalidatePath(TIERS);
  return answer(result);
}

export async function removePriceTierAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const tierId = idField(formData, "tierId");
  if (tierId === undefined) return NO_TIER_GIVEN;
  const result = await removePriceTier({ tierId, actor: gate.admin.actor });
  revalidatePath(TIERS);
  return answer(result);
}

export async function setTierPackPriceAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const tierId = idField(formData, "tierId");
  if (tierId === undefined) return NO_TIER_GIVEN;
  const parsed = parseTierRule(textField(formData, "kind"), textField(formData, "value"));
  if (!parsed.ok) return { ok: false, message: `${parsed.error}.` };
  const result = await setTierPackPrice({
    tierId,
    catalogId: textField(formData, "catalogId"),
    rule: parsed.rule,
    version: versionField(formData),
    belowCostConfirmed: textField(formData, "belowCost") === "yes",
    actor: gate.admin.actor,
  });
  revalidatePath(TIERS);
  return answer(result);
}

export async function clearTierPackPriceAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const tierId = idField(formData, "tierId");
  if (tierId === undefined) return NO_TIER_GIVEN;
  const result = await setTierPackPrice({
    tierId,
    catalogId: textField(formData, "catalogId"),
    rule: null,
    version: versionField(formData),
    actor: gate.admin.actor,
  });
  revalidatePath(TIERS);
  return answer(result);
}
