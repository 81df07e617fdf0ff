// Admins: who can use the dashboard, with what role, whether they sign in with two-factor, and when
// they last did. Owners (with two-factor on) invite, change roles, disable and reset two-factor;
// everyone else sees the list only.
import { ADMIN_ROLES } from "@/lib/admin-users/admin-role";
import { hasTwoFactor } from "@/lib/admin-users/admin-user-record";
import { listAdminUsers } from "@/lib/admin-users/list-admin-users";
import { mayUse, requireAdminPage } from "../../_lib/session";
import { formatTime } from "../../_lib/format";
import { ActionForm } from "../../_components/action-form";
import { DataTable } from "../../_components/data-table";
import type { AdminUserRecord } from "@/lib/admin-users/admin-user-record";
import { inviteAdminAction, resetAdminTwoFactorAction, setAdminDisabledAction, setAdminRoleAction } from "./actions";

export const metadata = { title: "Admins · Top-up operations" };

export default async function AdminsPage() {
  const me = await requireAdminPage();
  const admins = await listAdminUsers();
  const manage = mayUse(me, "owner");
  return (
    <>
      <h1>Admins</h1>
      {manage ? <InviteForm /> : <p className="muted">Only owners with two-factor on manage admins.</p>}
      <section className="panel" aria-label="Admin list">
        <DataTable
          label="Admins"
          columns={["Email", "Role", "Two-factor", "State", "Last sign-in", ...(manage ? [""] : [])]}
          rows={admins}
          empty="No admins."
        >
          {(admin) => <AdminRow key={admin.id} admin={admin} myId={me.id} manage={manage} />}
        </DataTable>
      </section>
    </>
  );
}

function InviteForm() {
  return (
    <section className="panel" aria-label="Invite an admin">
      <h2>Invite an admin</h2>
      <ActionForm
        action={inviteAdminAction}
        submitLabel="Invite"
        confirm="Create this admin? They can sign in at once with the password shown next."
        label="Invite an admin"
        resetOnSuccess
      >
        <label>
          Email <input name="email" type="email" required size={28} />
        </label>
        <label>
          Role{" "}
          <select name="role" defaultValue="viewer">
            {ADMIN_ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </label>
      </ActionForm>
    </section>
  );
}

function AdminRow({ admin, myId, manage }: { admin: AdminUserRecord; myId: number; manage: boolean }) {
  return (
    <tr data-admin={admin.email}>
      <td>
        {admin.email}
        {admin.id === myId ? <span className="muted"> (you)</span> : null}
      </td>
      <td data-testid="role">{admin.role}</td>
      <td data-testid="two-factor">
        <span className={`badge ${hasTwoFactor(admin) ? "good" : "bad"}`}>{hasTwoFactor(admin) ? "on" : "off"}</span>
      </td>
      <td data-testid="state">
        <span className={`badge ${admin.disabled ? "bad" : "good"}`}>{admin.disabled ? "disabled" : "active"}</span>
      </td>
      <td>{formatTime(admin.lastLoginAt)}</td>
      {manage ? (
        <td>
          <AdminActions admin={admin} myId={myId} />
        </td>
      ) : null}
    </tr>
  );
}

/** An owner's actions on one admin: the role, and (not on themselves) disabling and resetting two-factor. */
function AdminActions({ admin, myId }: { admin: AdminUserRecord; myId: number }) {
  return (
    <>
      <ActionForm
        action={setAdminRoleAction}
        submitLabel="Change role"
        confirm={`Change ${admin.email}'s role? It applies to their next page or action.`}
        label={`Role of ${admin.email}`}
      >
        <input type="hidden" name="adminId" value={admin.id} />
        {/* Keyed by the role: a changed role re-renders the choice instead of keeping the old one. */}
        <select key={admin.role} name="role" defaultValue={admin.role} aria-label="Role">
          {ADMIN_ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      </ActionForm>
      {admin.id !== myId ? (
        <ActionForm
          action={setAdminDisabledAction}
          submitLabel={admin.disabled ? "Enable" : "Disable"}
          tone={admin.disabled ? "primary" : "danger"}
          confirm={
            admin.disabled
              ? `Enable ${admin.email}? They can sign in again.`
              : `Disable ${admin.email}? Their sessions end at once and they cannot sign in.`
          }
          label={`${admin.disabled ? "Enable" : "Disable"} ${admin.email}`}
        >
          <input type="hidden" name="adminId" value={admin.id} />
          <input type="hidden" name="disabled" value={String(!admin.disabled)} />
        </ActionForm>
      ) : null}
      {admin.id !== myId && hasTwoFactor(admin) ? (
        <ActionForm
          action={resetAdminTwoFactorAction}
          submitLabel="Reset two-factor"
          confirm={`Turn ${admin.email}'s two-factor off? They sign in with their password alone until they set it up again.`}
          label={`Reset two-factor of ${admin.email}`}
        >
          <input type="hidden" name="adminId" value={admin.id} />
        </ActionForm>
      ) : null}
    </>
  );
}
