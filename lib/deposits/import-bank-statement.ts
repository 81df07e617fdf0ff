// A bank statement (CSV) against the open deposit requests: each incoming row whose amount, to the
// cent, is an open request's unique amount, dated within that request's time, is matched to it.
// previewBankStatement lists the matches and the rows matching nothing, changing nothing;
// approveStatementMatches approves exactly the previewed matches (same digest), each through
// approveDeposit, so a request is credited once however many imports or admins name it. A second
// import of the same file matches nothing: its requests are no longer open (those rows say so).
// A closed request's amount can be issued again, so a row naming no reference is matched only when no
// other request had its amount near its time: otherwise it may be that request's transfer (paid
// after an approval on the queue, or late), and an admin decides it on the queue.
import crypto from "node:crypto";
import { readCsv } from "../csv/read-csv";
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { formatUsd, parseUsd } from "../money/parse-usd";
import { approveDeposit, type DepositDecider } from "./decide-deposit";
import { referenceIn } from "./attach-deposit-proof";
import { LATE_PAYMENT_MS } from "./sql/insert-deposit-request";

export const STATEMENT_COLUMNS = ["date", "amount", "description"] as const;
export const MAX_STATEMENT_BYTES = 1_000_000;
const MAX_STATEMENT_ROWS = 5_000;
const DAY_MS = 86_400_000;
/** A transfer may be dated this much before its request (clocks, the bank's rounding). */
const EARLY_MS = 60_000;

interface StatementMatch {
  /** The row's line in the file (the header is line 1). */
  row: number;
  /** The row as the file has it: kept on the request it credits. */
  text: string;
  /** When the transfer was made, within the request's time (ISO). */
  paidAt: string;
  amountCents: number;
  description: string;
  depositId: number;
  reference: string;
  accountId: number;
}

export interface StatementPreview {
  matches: StatementMatch[];
  /** Rows matched to no open request, with why. */
  unmatched: { row: number; text: string; reason: string }[];
  /** Names the matches: approving checks it. */
  digest: string;
}

export type ApproveStatementResult =
  | {
      status: "done";
      approved: number;
      /** Above the large-credit amount: first approvals, each waiting for a second admin. */
      awaitingSecond: number;
      /** Decided by someone else since the preview. */
      skipped: number;
    }
  | { status: "stale"; preview: StatementPreview }
  | { status: "nothing_to_approve" };

interface StatementRow {
  row: number;
  text: string;
  /** Undefined: the row is refused, `reason` says why. */
  from?: Date;
  to?: Date;
  amountCents?: number;
  description: string;
  reason?: string;
}

function digestOf(matches: StatementMatch[]): string {
  const names = matches.map((match) => [match.row, match.depositId, match.amountCents, match.text]);
  return crypto.createHash("sha256").update(JSON.stringify(names)).digest("hex");
}

/** "2026-11-30" (the whole UTC day) or an ISO time ("2026-11-30T14:05", "2026-11-30 14:05:09Z", with an offset). */
function readDate(text: string): { from: Date; to: Date } | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const day = new Date(`${text}T00:00:00Z`);
    return Number.isNaN(day.getTime()) ? undefined : { from: day, to: new Date(day.getTime() + DAY_MS - 1) };
  }
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:\d{2})?$/.exec(text);
  if (!match) return undefined;
  const at = new Date(`${match[1]}T${match[2]}${match[3] ?? "Z"}`);
  return Number.isNaN(at.getTime()) ? undefined : { from: at, to: at };
}

function readRows(csv: string): StatementRow[] | { error: string } {
  const read = readCsv(csv, MAX_STATEMENT_BYTES);
  if ("error" in read) return { error: read.error };
  const [header, ...rows] = read.records;
  const names = header?.record.map((name) => name.toLowerCase()) ?? [];
  if (!names.includes("date") || !names.includes("amount"))
    return { error: `the first line names the columns: ${STATEMENT_COLUMNS.join(",")} (description may be left out)` };
  if (rows.length > MAX_STATEMENT_ROWS)
    return { error: `${rows.length} rows: at most ${MAX_STATEMENT_ROWS}, split it` };
  const cell = (record: string[], name: string) => record[names.indexOf(name)] ?? "";
  return rows.map(({ record, info }) => {
    const text = record.join(",");
    const description = names.includes("description") ? cell(record, "description") : "";
    const when = readDate(cell(record, "date"));
    const amountText = cell(record, "amount").replace(/^\$/, "").replace(/,/g, "");
    if (!when) return { row: info.lines, text, description, reason: "date: YYYY-MM-DD or an ISO time" };
    if (amountText.startsWith("-")) return { row: info.lines, text, description, reason: "outgoing: not a deposit" };
    const amount = parseUsd(amountText.replace(/^\+/, ""));
    if (!amount.ok) return { row: info.lines, text, description, reason: `amount: ${amount.error}` };
    return { row: info.lines, text, description, amountCents: amount.cents, ...when };
  });
}

export async function previewBankStatement(csv: string): Promise<StatementPreview | { error: string }> {
  const rows = readRows(csv);
  if ("error" in rows) return rows;
  const amounts = [...new Set(rows.flatMap((row) => (row.amountCents === undefined ? [] : [BigInt(row.amountCents)])))];
  const times = rows.flatMap((row) => (row.from && row.to ? [row.from.getTime(), row.to.getTime()] : []));
  const prisma = getPrisma();
  // The requests, open or closed, whose time (with a late payment's) meets the statement's.
  const requests =
    times.length === 0
      ? []
      : await prisma.depositRequest.findMany({
          where: {
            amountCents: { in: amounts },
            createdAt: { lte: new Date(Math.max(...times) + EARLY_MS) },
            expiresAt: { gte: new Date(Math.min(...times) - LATE_PAYMENT_MS) },
          },
          select: {
            id: true,
            reference: true,
            accountId: true,
            amountCents: true,
            status: true,
            createdAt: true,
            expiresAt: true,
          },
          orderBy: { id: "asc" },
        });
  const done = await prisma.depositRequest.findMany({
    where: { statementRow: { in: rows.map((row) => row.text) } },
    select: { reference: true, statementRow: true },
  });
  const preview: StatementPreview = { matches: [], unmatched: [], digest: "" };
  const taken = new Map<number, number>();
  for (const row of rows) {
    const outcome = matchRow(row, requests, taken, done);
    if ("reason" in outcome) preview.unmatched.push({ row: row.row, text: row.text, reason: outcome.reason });
    else preview.matches.push(outcome);
  }
  preview.digest = digestOf(preview.matches);
  return preview;
}

type KnownRequest = {
  id: number;
  reference: string;
  accountId: number;
  amountCents: bigint;
  status: string;
  createdAt: Date;
  expiresAt: Date;
};

function matchRow(
  row: StatementRow,
  requests: KnownRequest[],
  taken: Map<number, number>,
  done: { reference: string; statementRow: string | null }[],
): StatementMatch | { reason: string } {
  if (row.reason || row.amountCents === undefined || !row.from || !row.to)
    return { reason: row.reason ?? "unreadable" };
  const credited = done.find((deposit) => deposit.statementRow === row.text);
  if (credited) return { reason: `already credited: ${credited.reference}` };
  const named = referenceIn(row.description);
  const meets = (deposit: KnownRequest, lateMs: number) =>
    numberFromDb(deposit.amountCents) === row.amountCents &&
    row.to!.getTime() >= deposit.createdAt.getTime() - EARLY_MS &&
    row.from!.getTime() <= deposit.expiresAt.getTime() + lateMs;
  const deposit = requests.find(
    (request) => request.status === "pending" && meets(request, 0) && (!named || request.reference === named),
  );
  if (!deposit) return { reason: `no open request of ${formatUsd(row.amountCents)} within its time` };
  const rival = named ? undefined : requests.find((request) => request !== deposit && meets(request, LATE_PAYMENT_MS));
  if (rival)
    return {
      reason: `${formatUsd(row.amountCents)} was also ${rival.reference}'s (${rival.status}) near this row's time: decide ${deposit.reference} on the queue`,
    };
  const earlier = taken.get(deposit.id);
  if (earlier !== undefined) return { reason: `${deposit.reference} is matched by line ${earlier} already` };
  taken.set(deposit.id, row.row);
  // A date-only row: the transfer's time within both the day and the request's time.
  const paidAt = new Date(
    Math.min(Math.max(row.from.getTime(), deposit.createdAt.getTime()), deposit.expiresAt.getTime()),
  );
  return {
    row: row.row,
    text: row.text,
    paidAt: paidAt.toISOString(),
    amountCents: row.amountCents,
    description: row.description,
    depositId: deposit.id,
    reference: deposit.reference,
    accountId: deposit.accountId,
  };
}

/** Approves the previewed matches, each on its own (one transaction per request), if the file still reads as that preview. */
export async function approveStatementMatches(input: {
  csv: string;
  digest: string;
  by: DepositDecider;
}): Promise<ApproveStatementResult | { error: string }> {
  const preview = await previewBankStatement(input.csv);
  if ("error" in preview) return preview;
  if (preview.digest !== input.digest) return { status: "stale", preview };
  if (preview.matches.length === 0) return { status: "nothing_to_approve" };
  const result = { status: "done" as const, approved: 0, awaitingSecond: 0, skipped: 0 };
  for (const match of preview.matches) {
    const outcome = await approveDeposit(match.depositId, input.by, {
      paidAt: new Date(match.paidAt),
      statementRow: match.text,
    });
    if (outcome.status === "approved") result.approved++;
    else if (outcome.status === "first_approval") result.awaitingSecond++;
    else result.skipped++;
  }
  await recordAuditEntry({
    actor: input.by.actor,
    action: "deposit.statement_import",
    targetType: "deposit",
    details: {
      digest: preview.digest,
      approved: result.approved,
      awaitingSecond: result.awaitingSecond,
      skipped: result.skipped,
      unmatched: preview.unmatched.length,
      references: preview.matches.map((match) => match.reference),
    },
  });
  return result;
}
