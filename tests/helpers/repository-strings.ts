// Every string literal of the repository's tracked files: what someone reading the code could try
// as a secret. TypeScript and JavaScript are read with TypeScript's own scanner (strings and
// template pieces); other text files by their quoted and back-quoted runs.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const SCRIPT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const STRING_KINDS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

function scriptStrings(file: string, text: string, into: Set<string>): void {
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    false,
    /x$/.test(file) ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard,
    text,
  );
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    // A `}` may close a template substitution: rescan it as the template's next piece.
    if (kind === ts.SyntaxKind.CloseBraceToken) kind = scanner.reScanTemplateToken(false);
    if (STRING_KINDS.has(kind)) into.add(scanner.getTokenValue());
  }
}

function quotedStrings(text: string, into: Set<string>): void {
  for (const match of text.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`\n]*)`/g))
    into.add(match[1] ?? match[2] ?? match[3] ?? "");
}

/** `paths`: only the tracked files under these (git pathspecs); every tracked file when absent. */
export function repositoryStrings(root: string, minLength: number, paths: string[] = []): string[] {
  const files = execFileSync("git", ["ls-files", "-z", "--", ...paths], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  const found = new Set<string>();
  for (const file of files) {
    const full = path.join(root, file);
    if (!fs.existsSync(full) || !fs.statSync(full).isFile()) continue;
    const text = fs.readFileSync(full, "utf8");
    if (text.includes("\0")) continue; // binary
    if (SCRIPT.test(file)) scriptStrings(file, text, found);
    else quotedStrings(text, found);
  }
  return [...found].filter((value) => value.length >= minLength);
}
