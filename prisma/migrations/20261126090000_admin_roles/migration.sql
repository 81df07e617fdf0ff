-- Admin roles: viewer (reads), operator (settles orders, switches, account states), owner (catalog,
-- prices, tiers, suppliers, admins). Admins who exist already could do everything: they become owners.
ALTER TABLE "admin_users" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'owner';
ALTER TABLE "admin_users" ALTER COLUMN "role" SET DEFAULT 'viewer';
ALTER TABLE "admin_users" ADD CONSTRAINT "admin_users_role_check" CHECK ("role" IN ('viewer', 'operator', 'owner'));
