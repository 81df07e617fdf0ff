-- The @username an admin named in /credit or /debit: Confirm refuses when the account no longer carries it.
ALTER TABLE "admin_action_requests" ADD COLUMN "account_username" TEXT;
