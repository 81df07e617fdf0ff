// Creates a game line or edits one, validated by GameLineFields and audited in the same transaction.
// A line's code and kind are fixed once it has packs: its packs' catalog ids start with the code,
// and whether a pack is delivered from code stock or by a supplier depends on the kind. The slug
// may change (orders keep the slug they were placed under). GET /services reads the table directly,
// so a saved line shows there at once.
import { getPrisma, type PrismaTx } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { GameLineFields, describeIssues } from "./catalog-fields";
import { expectedVersion, nextVersion, staleEditMessage } from "../db/edit-version";

export type SaveCatalogResult =
  | { status: "created" | "updated" | "unchanged"; id: number; message: string }
  | { status: "refused"; problems: string[] };

type Stored = Omit<GameLineFields, "serverIdOptions"> & { serverIdOptions: GameLineFields["serverIdOptions"] };

/** The line's stored fields, compared field by field to say what an edit changed. */
function storedFields(row: {
  slug: string;
  code: string;
  gameName: string;
  productName: string;
  kind: GameLineFields["kind"];
  requiredFields: unknown;
  serverIdOptions: unknown;
  orderable: boolean;
  available: boolean;
  supplier: string;
}): Stored {
  return {
    ...row,
    requiredFields: row.requiredFields as GameLineFields["requiredFields"],
    serverIdOptions: (row.serverIdOptions ?? null) as GameLineFields["serverIdOptions"],
  };
}

// jsonb stores object keys in its own order: compare JSON values with their keys sorted.
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}

interface SaveGameLineInput {
  /** Absent: a new line. */
  lineId?: number;
  fields: unknown;
  /** The version the edit form was opened on (lib/db/edit-version.ts). */
  version?: string;
  actor: string;
}

export async function saveGameLine(input: SaveGameLineInput): Promise<SaveCatalogResult> {
  const parsed = GameLineFields.safeParse(input.fields);
  if (!parsed.success) return { status: "refused", problems: describeIssues(parsed.error) };
  const line = parsed.data;
  try {
    return await getPrisma().$transaction(async (tx) => {
      const clash = await tx.gameLine.findFirst({
        select: { id: true, slug: true, code: true },
        where: { OR: [{ slug: line.slug }, { code: line.code }], NOT: input.lineId ? { id: input.lineId } : undefined },
      });
      if (clash)
        return {
          status: "refused" as const,
          problems: [
            clash.slug === line.slug
              ? `Slug: ${line.slug} is taken by another line`
              : `Code: ${line.code} is taken by line ${clash.slug}`,
          ],
        };
      if (input.lineId === undefined) return createLine(tx, input, line);
      return updateLine(tx, input, input.lineId, line);
    });
  } catch (error) {
    // Two admins creating the same slug or code at once: the unique index decides.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      return { status: "refused", problems: ["Slug or code: taken by another line just now"] };
    throw error;
  }
}

/** The line's fields as the table stores them. */
function rowData(line: GameLineFields) {
  return { ...line, serverIdOptions: line.serverIdOptions ?? Prisma.DbNull };
}

async function createLine(tx: PrismaTx, input: SaveGameLineInput, line: GameLineFields): Promise<SaveCatalogResult> {
  const last = await tx.gameLine.aggregate({ _max: { sortOrder: true } });
  const created = await tx.gameLine.create({
    data: { ...rowData(line), sortOrder: (last._max.sortOrder ?? -1) + 1 },
    select: { id: true },
  });
  await recordAuditEntry(
    { actor: input.actor, action: "line.create", targetType: "game_line", targetId: created.id, details: line },
    tx,
  );
  return { status: "created", id: created.id, message: `Line ${line.slug} created.` };
}

async function updateLine(
  tx: PrismaTx,
  input: SaveGameLineInput,
  lineId: number,
  line: GameLineFields,
): Promise<SaveCatalogResult> {
  const before = await tx.gameLine.findUnique({
    where: { id: lineId },
    include: { _count: { select: { products: true } } },
  });
  if (!before) return { status: "refused", problems: ["No such line."] };
  const old = storedFields(before);
  if (before._count.products > 0 && (old.code !== line.code || old.kind !== line.kind))
    return {
      status: "refused",
      problems: [
        `Code and kind are fixed once a line has packs (${before._count.products} here): its catalog ids start with ${old.code} and its packs are ${old.kind}`,
      ],
    };
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(line) as (keyof Stored)[]) {
    if (canonical(old[key]) !== canonical(line[key])) changes[key] = { from: old[key], to: line[key] };
  }
  if (Object.keys(changes).length === 0)
    return { status: "unchanged", id: before.id, message: `Line ${line.slug}: nothing to change.` };
  // Compare-and-set on the version the form was opened on (else the row as read): an edit that
  // landed since is not overwritten unseen, and the audit entry's "from" values are the ones replaced.
  const expected = expectedVersion(input.version) ?? before.updatedAt;
  const { count } = await tx.gameLine.updateMany({
    where: { id: before.id, updatedAt: expected },
    data: { ...rowData(line), updatedAt: nextVersion(expected) },
  });
  if (count === 0) return { status: "refused", problems: [staleEditMessage(`Line ${old.slug}`)] };
  await recordAuditEntry(
    {
      actor: input.actor,
      action: "line.update",
      targetType: "game_line",
      targetId: before.id,
      details: { slug: line.slug, changes },
    },
    tx,
  );
  return {
    status: "updated",
    id: before.id,
    message: `Line ${line.slug} saved: ${Object.keys(changes).join(", ")} changed.`,
  };
}
