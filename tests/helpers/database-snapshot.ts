// What a migrated database is made of, as sorted lines that compare with toEqual: the public schema's
// tables, views and composite types with their columns, constraints, indexes, triggers, enums and
// functions (pg_get_functiondef), and what _prisma_migrations and _sql_functions record.
import pg from "pg";

const QUERIES: Record<string, string> = {
  relation: `SELECT c.relkind::text || ' ' || c.relname || ': ' || coalesce(string_agg(
                a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum), '')
               FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace
               LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
               LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'c', 'S', 'p')
              GROUP BY c.relkind, c.relname`,
  constraint: `SELECT conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid)
                 FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid <> 0`,
  index: `SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'`,
  trigger: `SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
             WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`,
  enum: `SELECT t.typname || ': ' || string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder)
           FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
          WHERE t.typnamespace = 'public'::regnamespace GROUP BY t.typname`,
  function: `SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`,
  migration: `SELECT migration_name || ' ' || checksum FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
  "function file": `SELECT name || ' ' || checksum FROM _sql_functions`,
};

export async function snapshotDatabase(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const lines: string[] = [];
    const { rows: tables } = await client.query(
      `SELECT to_regclass('_prisma_migrations') IS NOT NULL AS migration, to_regclass('_sql_functions') IS NOT NULL AS "function file"`,
    );
    for (const [kind, text] of Object.entries(QUERIES)) {
      if (tables[0][kind] === false) continue; // a record table the database has not got
      const { rows } = await client.query<string[]>({ text, rowMode: "array" });
      for (const [line] of rows) lines.push(`${kind} ${line}`);
    }
    return lines.sort();
  } finally {
    await client.end();
  }
}
