-- The caller of an API request, by its key's hash: the key, its allowlist, and the holder's state
-- (ban, restriction, API switches, age) and price tier. The account acted on, its credits and the
-- mode are the test account's for a test key. No row for an unknown or revoked key. Inlined into
-- the statement that selects from it.
CREATE OR REPLACE FUNCTION api_caller(key_hash text)
RETURNS TABLE (
  "keyId" integer,
  "accountId" integer,
  "requireIpAllowlist" boolean,
  "keyCreatedAt" timestamptz,
  "cidrs" text[],
  "apiEnabled" boolean,
  "apiDisabledByAdmin" boolean,
  "bannedAt" timestamptz,
  "restrictedUntil" timestamptz,
  "accountCreatedAt" timestamptz,
  "totalCreditedCents" bigint,
  "livemode" boolean,
  "priceTierId" integer
) LANGUAGE sql STABLE AS $$
  SELECT k.id, CASE WHEN k.livemode THEN a.id ELSE t.id END, k.require_ip_allowlist, k.created_at,
         COALESCE((SELECT array_agg(e.cidr) FROM ip_allow_entries e WHERE e.api_key_id = k.id), '{}'),
         a.api_enabled, a.api_disabled_by_admin, a.banned_at, a.restricted_until, a.created_at,
         CASE WHEN k.livemode THEN a.total_credited_cents ELSE t.total_credited_cents END, k.livemode,
         a.price_tier_id
    FROM api_keys k
    JOIN accounts a ON a.id = k.account_id
    LEFT JOIN accounts t ON NOT k.livemode AND t.live_account_id = a.id
   WHERE k.key_hash = api_caller.key_hash AND k.revoked_at IS NULL
$$;
