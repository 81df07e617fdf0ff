// Compares schema.prisma (through Prisma's own schema parser, compiled to WASM) with what the
// migrations built in a real database: tables, columns, types, nullability, enums, unique and
// plain indexes, primary keys. Returns one line per difference.
import wasm from "@prisma/prisma-schema-wasm";

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum" | "unsupported";
  type: string;
  isRequired: boolean;
  isList: boolean;
  nativeType?: [string, string[]] | null;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  fields: { name: string }[];
}
interface Dmmf {
  datamodel: {
    models: DmmfModel[];
    enums: { name: string; dbName?: string | null; values: { name: string; dbName?: string | null }[] }[];
    indexes: DmmfIndex[];
  };
}

type Query = (text: string) => Promise<Record<string, any>[]>;

function parseSchema(schemaText: string): Dmmf {
  return JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", schemaText]] })));
}

const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Int: "int4",
  BigInt: "int8",
  Boolean: "bool",
  DateTime: "timestamp",
  Json: "jsonb",
  Float: "float8",
  Decimal: "numeric",
  Bytes: "bytea",
};
const NATIVE_TYPES: Record<string, string> = {
  Timestamptz: "timestamptz",
  Timestamp: "timestamp",
  VarChar: "varchar",
  Text: "text",
  Uuid: "uuid",
  Integer: "int4",
  SmallInt: "int2",
  BigInt: "int8",
  JsonB: "jsonb",
  Json: "json",
};

function expectedUdt(field: DmmfField, enumDbNames: Map<string, string>): string {
  if (field.kind === "enum") return enumDbNames.get(field.type) ?? field.type;
  const base = field.nativeType
    ? (NATIVE_TYPES[field.nativeType[0]] ?? field.nativeType[0].toLowerCase())
    : (SCALAR_TYPES[field.type] ?? field.type);
  return field.isList ? `_${base}` : base;
}

export async function diffSchemaAgainstDatabase(schemaText: string, query: Query): Promise<string[]> {
  const dmmf = parseSchema(schemaText).datamodel;
  const problems: string[] = [];
  const enumDbNames = new Map(dmmf.enums.map((e) => [e.name, e.dbName ?? e.name]));

  // Enums and their values.
  const dbEnums = await query(
    `SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname`,
  );
  const dbEnumMap = new Map(dbEnums.map((row) => [row.name as string, (row.labels as string[]).join(",")]));
  for (const e of dmmf.enums) {
    const name = e.dbName ?? e.name;
    const wanted = e.values.map((v) => v.dbName ?? v.name).join(",");
    if (!dbEnumMap.has(name)) problems.push(`enum ${name} is missing in the database`);
    else if (dbEnumMap.get(name) !== wanted)
      problems.push(`enum ${name}: database has [${dbEnumMap.get(name)}], schema has [${wanted}]`);
    dbEnumMap.delete(name);
  }
  for (const name of dbEnumMap.keys()) problems.push(`enum ${name} exists in the database but not in the schema`);

  // Tables and columns.
  const columns = await query(
    `SELECT table_name, column_name, udt_name, is_nullable, datetime_precision
       FROM information_schema.columns WHERE table_schema = 'public'
        AND table_name NOT IN ('_prisma_migrations', '_sql_functions')`,
  );
  const dbTables = new Map<string, Map<string, Record<string, any>>>();
  for (const column of columns) {
    if (!dbTables.has(column.table_name)) dbTables.set(column.table_name, new Map());
    dbTables.get(column.table_name)!.set(column.column_name, column);
  }
  const columnName = new Map<string, Map<string, string>>();
  for (const model of dmmf.models) {
    const table = model.dbName ?? model.name;
    const names = new Map<string, string>();
    columnName.set(model.name, names);
    const dbColumns = dbTables.get(table);
    if (!dbColumns) {
      problems.push(`table ${table} (model ${model.name}) is missing in the database`);
      continue;
    }
    for (const field of model.fields) {
      if (field.kind === "object") continue;
      const column = field.dbName ?? field.name;
      names.set(field.name, column);
      const dbColumn = dbColumns.get(column);
      if (!dbColumn) {
        problems.push(`column ${table}.${column} (field ${model.name}.${field.name}) is missing in the database`);
        continue;
      }
      const udt = expectedUdt(field, enumDbNames);
      if (dbColumn.udt_name !== udt)
        problems.push(`column ${table}.${column}: database type ${dbColumn.udt_name}, schema wants ${udt}`);
      const nullable = dbColumn.is_nullable === "YES";
      if (nullable === field.isRequired) {
        problems.push(
          `column ${table}.${column}: database ${nullable ? "allows" : "forbids"} NULL, schema ${field.isRequired ? "requires a value" : "allows NULL"}`,
        );
      }
      // A date (@db.Date) has no fraction of a second: PostgreSQL reports its precision as 0.
      const precision = field.nativeType?.[0] === "Date" ? 0 : Number(field.nativeType?.[1]?.[0] ?? 3);
      if (field.type === "DateTime" && dbColumn.datetime_precision !== precision) {
        problems.push(
          `column ${table}.${column}: timestamp precision ${dbColumn.datetime_precision}, schema wants ${precision}`,
        );
      }
      dbColumns.delete(column);
    }
    for (const extra of dbColumns.keys())
      problems.push(`column ${table}.${extra} exists in the database but not in the schema`);
    dbTables.delete(table);
  }
  for (const table of dbTables.keys()) problems.push(`table ${table} exists in the database but not in the schema`);

  // Indexes: primary keys, unique constraints and plain indexes, compared by table and columns.
  const describe = (table: string, kind: string, cols: string[]) => `${kind} ${table}(${cols.join(", ")})`;
  const tableOf = new Map(dmmf.models.map((m) => [m.name, m.dbName ?? m.name]));
  const wanted = new Set(
    dmmf.indexes
      .filter((index) => index.type !== "fulltext")
      .map((index) =>
        describe(
          tableOf.get(index.model)!,
          index.type === "id" ? "primary key" : index.type === "unique" ? "unique index" : "index",
          index.fields.map((f) => columnName.get(index.model)?.get(f.name) ?? f.name),
        ),
      ),
  );
  const dbIndexes = await query(
    `SELECT t.relname AS table_name, ix.indisprimary AS is_primary, ix.indisunique AS is_unique,
            array_agg(a.attname::text ORDER BY k.ordinality) AS columns
       FROM pg_index ix
       JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ordinality) ON true
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND t.relname NOT IN ('_prisma_migrations', '_sql_functions')
      GROUP BY ix.indexrelid, t.relname, ix.indisprimary, ix.indisunique`,
  );
  const found = new Set(
    dbIndexes.map((row) =>
      describe(row.table_name, row.is_primary ? "primary key" : row.is_unique ? "unique index" : "index", row.columns),
    ),
  );
  for (const index of wanted) if (!found.has(index)) problems.push(`${index} is in the schema but not in the database`);
  for (const index of found) if (!wanted.has(index)) problems.push(`${index} is in the database but not in the schema`);
  return problems;
}
