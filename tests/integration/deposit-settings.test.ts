// The payment methods /deposit answers, as the Deposits page saves them: its form carries the version
// it was opened on, so a stale tab cannot bring back bank details another owner replaced.
import { describe, expect, it } from "vitest";
import { readDepositSettings, setDepositSettings } from "@/lib/deposits/deposit-settings";
import { editVersionOf, NEVER_SAVED, StaleEditError } from "@/lib/db/edit-version";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase({ catalog: false });

const bank = (account: string) => [{ name: "Bank transfer", instructions: `Account ${account}` }];
const formVersion = async () => editVersionOf((await readDepositSettings()).updatedAt ?? NEVER_SAVED);

describe("saving the payment methods from the dashboard", () => {
  it("refuses a save from a form opened before another owner's, and changes nothing", async () => {
    const neverSaved = await formVersion();
    await setDepositSettings({ methods: bank("OLD-111"), validityMinutes: 120 }, "admin:a@example.com", neverSaved);
    // Two owners open the page; B replaces the closed account, then A saves from the stale tab.
    const opened = await formVersion();
    await setDepositSettings({ methods: bank("NEW-222"), validityMinutes: 120 }, "admin:b@example.com", opened);
    await expect(
      setDepositSettings({ methods: bank("OLD-111"), validityMinutes: 90 }, "admin:a@example.com", opened),
    ).rejects.toBeInstanceOf(StaleEditError);
    expect(await readDepositSettings()).toMatchObject({ methods: bank("NEW-222"), validityMinutes: 120 });
    // Reloaded, A's form saves.
    await setDepositSettings(
      { methods: bank("NEW-222"), validityMinutes: 90 },
      "admin:a@example.com",
      await formVersion(),
    );
    expect(await readDepositSettings()).toMatchObject({ methods: bank("NEW-222"), validityMinutes: 90 });
  });

  it("a form opened before the first save is stale once another owner saved", async () => {
    const neverSaved = await formVersion();
    await setDepositSettings({ methods: bank("FIRST-1"), validityMinutes: 60 }, "admin:b@example.com", neverSaved);
    await expect(
      setDepositSettings({ methods: bank("SECOND-2"), validityMinutes: 60 }, "admin:a@example.com", neverSaved),
    ).rejects.toBeInstanceOf(StaleEditError);
  });
});
