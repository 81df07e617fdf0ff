-- place_order reads the pack, its line and its price itself (prisma/functions/place_order.sql), so
-- its parameters changed: the old function goes here, and the file creates the new one after the
-- migrations (docs/data-layer.md: Changing a SQL function).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

DROP FUNCTION IF EXISTS place_order(integer, text, integer, integer, text, text, text, integer, text, text, "LineKind",
                                    text, bigint, integer, text, text, text, text, text, text, text);
