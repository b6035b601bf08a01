// The layers of src/: the relayer declares what it needs (its store, its rate limiter) and imports
// nothing from the HTTP server or the wiring; the server imports nothing from the wiring; only
// src/app/ builds the running relayer from the parts. A test so that the seams stay where they are.
//
// Inside src/relayer/, the request spine (relayer.ts) sits on stage folders, each importing only from
// the stages below it and the shared files beside relayer.ts; and no file of src/ reaches itself
// through its imports. Type-only imports count too: a circle of types is still a circle a reader
// has to follow round.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const src = path.resolve(import.meta.dirname, "../../src");

/** Every .ts file under `dir`, with the src/ directories its relative imports resolve into. */
function importsOf(dir: string): Array<{ file: string; target: string }> {
  const found: Array<{ file: string; target: string }> = [];
  for (const entry of readdirSync(path.join(src, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const match of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)) {
      const target = path.relative(src, path.resolve(path.dirname(file), match[1]!));
      found.push({ file: path.relative(src, file), target });
    }
  }
  return found;
}

/** The stages of src/relayer/, lowest first: a stage imports from itself and from stages before it only. */
const STAGES = ["ai", "chain", "policy", "kinds", "submit", "intake", "route", "review"];
/** The spine: imports every stage, imported by none of them. */
const SPINE = path.join("relayer", "relayer.ts");

/** The stage folder of a file under relayer/, or undefined for a file beside relayer.ts. */
function stageOf(file: string): string | undefined {
  const parts = file.split(path.sep);
  return parts[0] === "relayer" && parts.length > 2 ? parts[1] : undefined;
}

/**
 * Every import circle among `imports` (one per strongly connected set of files, Tarjan's algorithm),
 * each written as a walk from its first file back to it: `a.ts → b.ts → a.ts`.
 */
function importCycles(imports: ReadonlyArray<{ file: string; target: string }>): string[] {
  const edges = new Map<string, string[]>();
  for (const { file, target } of imports) {
    if (!edges.has(file)) edges.set(file, []);
    edges.get(file)!.push(target);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    const selfImport = (edges.get(file) ?? []).includes(file);
    if (members.length > 1 || selfImport) circles.push(members);
  }
  for (const file of [...edges.keys()].sort()) if (!index.has(file)) visit(file);
  return circles.map((members) => walkRound(members.sort(), edges).join(" → "));
}

/** A shortest walk from the set's first file back to it, through the set's members only. */
function walkRound(members: string[], edges: ReadonlyMap<string, readonly string[]>): string[] {
  const inSet = new Set(members);
  const start = members[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of edges.get(file) ?? []) {
      if (!inSet.has(next)) continue;
      if (next === start) {
        const walk = [start];
        for (let at: string | undefined = file; at !== start; at = cameFrom.get(at!)) walk.splice(1, 0, at!);
        return [...walk, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [...members, start];
}

const into = (layer: string) => ({ target }: { target: string }) => target === layer || target.startsWith(`${layer}/`);

describe("layers of src/", () => {
  it("relayer/ imports nothing from server/ or app/", () => {
    const imports = importsOf("relayer");
    expect(imports.length).toBeGreaterThan(50); // the scan sees the relayer's imports
    expect(imports.filter(into("server"))).toEqual([]);
    expect(imports.filter(into("app"))).toEqual([]);
  });

  it("ledger/ and server/ import nothing from app/", () => {
    expect([...importsOf("ledger"), ...importsOf("server")].filter(into("app"))).toEqual([]);
  });

  it("the running relayer is built in app/ only: nothing else in src/ but the CLI's serve imports it", () => {
    const users = ["relayer", "server", "ledger", "cli"].flatMap(importsOf).filter(into("app")).map((i) => i.file);
    expect(users).toEqual([path.join("cli", "commands", "serve.ts")]);
  });
});

describe("stages of src/relayer/", () => {
  it("every folder of src/relayer/ is a stage, and says what it holds (README.md or index.ts)", () => {
    const folders = readdirSync(path.join(src, "relayer"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.sort()).toEqual([...STAGES].sort());
    for (const stage of STAGES) {
      const files = readdirSync(path.join(src, "relayer", stage));
      expect(files.includes("README.md") || files.includes("index.ts"), `relayer/${stage}/ has a README.md or an index.ts`).toBe(true);
    }
  });

  it("a stage imports only from itself, the stages before it and the shared files beside relayer.ts; never the spine", () => {
    const upward = importsOf("relayer")
      .filter(({ file, target }) => {
        const from = stageOf(file);
        if (from === undefined || !target.startsWith(`relayer${path.sep}`)) return false;
        if (target === SPINE) return true;
        const to = stageOf(target);
        return to !== undefined && STAGES.indexOf(to) > STAGES.indexOf(from);
      })
      .map(({ file, target }) => `${file} → ${target}`);
    expect(upward).toEqual([]);
  });

  it("the shared files beside relayer.ts import no stage", () => {
    const shared = importsOf("relayer").filter(({ file }) => stageOf(file) === undefined && file !== SPINE);
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.filter(({ target }) => stageOf(target) !== undefined).map(({ file, target }) => `${file} → ${target}`)).toEqual([]);
  });

  it("the spine is imported only by the wiring and the HTTP route that calls it", () => {
    const users = importsOf(".").filter(({ target }) => target === SPINE).map(({ file }) => file);
    expect(users.sort()).toEqual([path.join("app", "service.ts"), path.join("server", "routes", "intents.ts")]);
  });
});

describe("import circles in src/", () => {
  it("importCycles finds a circle and names it, shortest way round", () => {
    const circle = [
      { file: "a.ts", target: "b.ts" },
      { file: "b.ts", target: "c.ts" },
      { file: "c.ts", target: "a.ts" },
      { file: "c.ts", target: "d.ts" },
      { file: "b.ts", target: "a.ts" },
    ];
    expect(importCycles(circle)).toEqual(["a.ts → b.ts → a.ts"]);
    expect(importCycles([{ file: "e.ts", target: "e.ts" }])).toEqual(["e.ts → e.ts"]);
    expect(importCycles([{ file: "a.ts", target: "b.ts" }, { file: "b.ts", target: "c.ts" }])).toEqual([]);
  });

  it("no file of src/ reaches itself through its relative imports", () => {
    const imports = importsOf(".").filter(({ target }) => !target.startsWith(".."));
    expect(imports.length).toBeGreaterThan(500); // the scan sees all of src/
    expect(importCycles(imports)).toEqual([]);
  });
});
