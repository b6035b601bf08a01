// The layers of src/: the relayer declares what it needs (its store, its rate limiter) and imports
// nothing from the HTTP server or the wiring; the server imports nothing from the wiring; only
// src/app/ builds the running relayer from the parts. A test so that the seams stay where they are.
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
