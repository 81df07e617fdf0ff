// No function in lib/ or app/ is longer than a reader can hold at once: LIMIT lines at most, from its
// first line to its last, the functions nested in it included (a closure of 390 lines is one
// function of 390 lines). Page components count like any other function.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const LIMIT = 100;
const SCANNED = ["lib", "app"];
const SKIPPED = ["lib/generated/"];

function sourceFiles(entry: string): string[] {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [entry];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((child) => {
    const relative = `${entry}/${child.name}`;
    if (SKIPPED.some((skip) => `${relative}/`.startsWith(skip))) return [];
    if (child.isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(child.name) && !child.name.endsWith(".d.ts") ? [relative] : [];
  });
}

/** A function's name as a reader finds it: its own, or the variable or property it is assigned to. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(source);
  return `(function at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`;
}

/** Every function with a body in `text`, with its length in lines (doc comments not counted). */
function functionLengths(file: string, text = fs.readFileSync(path.join(root, file), "utf8")) {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: { name: string; lines: number }[] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      found.push({ name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("function length", () => {
  const files = SCANNED.flatMap(sourceFiles);
  const all = files.flatMap((file) => functionLengths(file).map((f) => ({ ...f, key: `${file} ${f.name}` })));

  it(`keeps every function in lib/ and app/ within ${LIMIT} lines`, () => {
    expect(files.length).toBeGreaterThan(100);
    const tooLong = all.filter((f) => f.lines > LIMIT).map((f) => `${f.key}: ${f.lines}`);
    expect(tooLong).toEqual([]);
  });

  it("measures a function from its first line to its last, nested ones included", () => {
    const probe = [
      "/** Not counted. */",
      "export function outer() {",
      "  const inner = () => {",
      "    return 1;",
      "  };",
      "  return inner();",
      "}",
      "const Page = async () => <p>{[1].map((n) => n)}</p>;",
      "class Runner { stop() {",
      "} }",
    ].join("\n");
    expect(functionLengths("probe.tsx", probe)).toEqual([
      { name: "outer", lines: 6 },
      { name: "inner", lines: 3 },
      { name: "Page", lines: 1 },
      { name: "(function at line 8)", lines: 1 },
      { name: "stop", lines: 2 },
    ]);
  });
});
