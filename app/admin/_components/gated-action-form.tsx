// An ActionForm shown only to admins who may use its action (a viewer sees no operator form, an owner
// without two-factor no owner form). Only a convenience: the action checks the role itself.
import type { AdminRole } from "@/lib/admin-users/admin-role";
import { currentAdmin, mayUse } from "../_lib/session";
import { ActionForm, type ActionFormProps } from "./action-form";

export async function GatedActionForm({ role, ...props }: ActionFormProps & { role: AdminRole }) {
  const admin = await currentAdmin();
  if (!admin || !mayUse(admin, role)) return null;
  return <ActionForm {...props} />;
}
