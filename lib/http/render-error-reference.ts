// The error reference, rendered from the catalogue for docs/errors.md (`npm run docs:errors` writes it
// between the markers below) and for the OpenAPI document (`x-error-codes`). A test compares both
// with the catalogue, so neither can drift from what the API answers.
import { errorCatalogue, type ErrorKey, type ErrorReference } from "./errors";

/** The file that holds the rendered table, relative to the project root. */
export const ERROR_REFERENCE_FILE = "docs/errors.md";
export const ERROR_REFERENCE_MARKERS = { start: "<!-- error-reference:start -->", end: "<!-- error-reference:end -->" };

export interface ErrorCodeEntry extends ErrorReference {
  code: ErrorKey;
}

/** Every code, ordered by HTTP status and then as the catalogue lists them. */
export function listErrorCodes(): ErrorCodeEntry[] {
  return (Object.entries(errorCatalogue) as [ErrorKey, ErrorReference][])
    .map(([code, entry]) => ({ code, ...entry }))
    .sort((a, b) => a.status - b.status);
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export function renderErrorReferenceMarkdown(): string {
  const rows = listErrorCodes().map(
    (e) =>
      `| ${e.status} | \`${e.code}\` | ${cell(e.error)} | ${cell(e.when)} | ${e.retryable ? "yes" : "no"} | ${cell(e.action)} |`,
  );
  return [
    "| HTTP | `code` | `error` | when | retry can succeed | what to do |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/**
 * The same reference as a Markdown list, one item per code, for /docs: its introduction is a
 * narrow column where a six-column table cannot be read.
 */
export function renderErrorReferenceList(): string {
  return listErrorCodes()
    .map(
      (e) =>
        `- **\`${e.code}\`** (${e.status}, \`error\`: ${cell(e.error)}; a retry can succeed: ${e.retryable ? "yes" : "no"}). ` +
        `${cell(e.when)} *What to do:* ${cell(e.action)}`,
    )
    .join("\n");
}

/** The document with its error-reference section replaced by the current rendering. */
export function withErrorReference(document: string): string {
  const start = document.indexOf(ERROR_REFERENCE_MARKERS.start);
  const end = document.indexOf(ERROR_REFERENCE_MARKERS.end);
  if (start < 0 || end < start)
    throw new Error(
      `${ERROR_REFERENCE_FILE} has no ${ERROR_REFERENCE_MARKERS.start} ... ${ERROR_REFERENCE_MARKERS.end} section`,
    );
  return (
    document.slice(0, start + ERROR_REFERENCE_MARKERS.start.length) +
    "\n" +
    renderErrorReferenceMarkdown() +
    "\n" +
    document.slice(end)
  );
}
