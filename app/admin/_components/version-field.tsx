// The hidden field that makes an edit form carry the version of the row it shows
// (lib/db/edit-version.ts): a save over another admin's newer save is then refused.
import { editVersionOf } from "@/lib/db/edit-version";

export function VersionField({ updatedAt }: { updatedAt: Date }) {
  return <input type="hidden" name="version" value={editVersionOf(updatedAt)} />;
}
