-- Sessions of an admin that signed in before this moment are refused (set when an owner disables
-- the admin or resets their two-factor), so a session taken before is not back once they are
-- enabled again or enrolled anew. NULL: every session within its lifetime.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE "admin_users" ADD COLUMN "sessions_valid_from" TIMESTAMPTZ(3);
