-- A line opened or closed for orders, or listed or hidden, changes every one of its packs for clients.
CREATE OR REPLACE FUNCTION mark_line_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mark_products_changed(ARRAY(SELECT p.id FROM products p WHERE p.line_id = NEW.id));
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER game_lines_mark_change AFTER UPDATE ON "game_lines"
  FOR EACH ROW WHEN ((OLD.available, OLD.orderable) IS DISTINCT FROM (NEW.available, NEW.orderable))
  EXECUTE FUNCTION mark_line_change();
