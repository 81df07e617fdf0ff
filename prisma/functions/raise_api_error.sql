-- A statement that is its own transaction (no BEGIN/COMMIT around it) can only undo its writes by
-- failing. raise_api_error lets such a statement fail on purpose with one of the API's error codes
-- (lib/http/errors.ts) as the message, SQLSTATE P0001: a placement fails with INSUFFICIENT_STOCK
-- when fewer codes are free than ordered (lock_free_codes), so nothing is charged or stored.
-- `fields`, when given, are the error answer's own fields (the price a refused maxPrice met), as
-- the error's DETAIL.
CREATE OR REPLACE FUNCTION raise_api_error(code text, fields jsonb DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = code, DETAIL = coalesce(fields::text, '');
END;
$$;
