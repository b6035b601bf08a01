// The manifest's quick check (src/devnet/manifest-shape.ts) against its zod schema: a manifest as relay
// writes it passes the quick check (so a CLI call never loads zod), and whatever the quick check
// passes, among thousands of damaged and extended manifests, the schema passes too and returns the
// same value, field order included. Anything else is read through the schema: a broken manifest's
// message is still zod's.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/devnet/manifest.ts";
import { manifestSchema } from "../../src/devnet/manifest-schema.ts";
import { plainManifest } from "../../src/devnet/manifest-shape.ts";
import { sampleManifest } from "../cli/support/manifest.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const dir = mkdtempSync(path.join(tmpdir(), "relay-manifest-shape-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every path to a value in `value` (objects and arrays), the root included. */
function pathsOf(value: Json, at: string[] = []): string[][] {
  const here = [at];
  if (value === null || typeof value !== "object") return here;
  return [...here, ...Object.entries(value).flatMap(([key, child]) => pathsOf(child, [...at, key]))];
}

/** `value` with the field at `at` replaced (or deleted, for undefined), as JSON text would have it; as it is when `at` no longer leads anywhere. */
function edited(value: Json, at: string[], next: Json | undefined): Json {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  if (at.length === 0) return next ?? null;
  if (copy === null || typeof copy !== "object") return copy;
  let parent = copy as Record<string, Json>;
  for (const key of at.slice(0, -1)) {
    // An earlier edit replaced a field on the way: nothing left to edit here.
    if (parent[key] === null || typeof parent[key] !== "object") return copy;
    parent = parent[key] as Record<string, Json>;
  }
  if (next === undefined) delete parent[at.at(-1)!];
  else parent[at.at(-1)!] = next;
  return copy;
}

// Values near the schema's edges: addresses and keys off by a character, numbers at the limits,
// URLs with spaces or line breaks, objects where strings go, and the odd key.
const edges: Json[] = [
  0, 1, 2, -1, 1.5, 77, 78, 2 ** 53, Number.MAX_SAFE_INTEGER, "", "1", true, false, null, [], {},
  "http://127.0.0.1:8545", " http://127.0.0.1:8545", "http://127.0.0.1:8545 ", "http://127.0.0.1:\n8545", "http://exa\tmple.com", "not a url", "mailto:x@y", "\u00a0http://x",
  `0x${"ab".repeat(20)}`, `0x${"ab".repeat(19)}a`, `0X${"ab".repeat(20)}`, `0x${"AB".repeat(32)}`, `0x${"gg".repeat(32)}`,
  { address: `0x${"12".repeat(20)}`, privateKey: `0x${"34".repeat(32)}` },
  { address: `0x${"12".repeat(20)}`, privateKey: `0x${"34".repeat(32)}`, extra: 1 },
  { address: `0x${"12".repeat(20)}`, decimals: 6 },
];
const tricky: fc.Arbitrary<Json> = fc.oneof(fc.constantFrom(...edges), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>);

describe("the manifest's quick check", () => {
  it("passes a manifest as relay writes it, returning what the schema returns", () => {
    const manifest = sampleManifest();
    const withExtraBot = { ...manifest, accounts: { ...manifest.accounts, bots: { extra: manifest.accounts.bots.default, ...manifest.accounts.bots } } };
    const minimal = { ...manifest, relayerUrl: undefined, accounts: { ...manifest.accounts, deployer: undefined } };
    for (const raw of [manifest, { ...manifest, devnet: true }, withExtraBot, JSON.parse(JSON.stringify(minimal)) as unknown]) {
      const quick = plainManifest(raw);
      expect(quick).toBeDefined();
      expect(JSON.stringify(quick)).toBe(JSON.stringify(manifestSchema.parse(raw)));
    }
  });

  /** Whether the quick check passes `raw`; when it does, the schema must pass it and return the same. */
  function agrees(raw: Json): boolean {
    const quick = plainManifest(raw);
    if (quick === undefined) return false;
    const zod = manifestSchema.safeParse(raw);
    expect(zod.success, JSON.stringify(raw)).toBe(true);
    expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
    return true;
  }

  it("agrees with the schema on every field set to every edge value, or deleted", () => {
    const base = JSON.parse(JSON.stringify({ ...sampleManifest(), devnet: true })) as Json;
    for (const at of pathsOf(base)) {
      for (const value of [...edges, undefined]) agrees(edited(base, at, value));
    }
  });

  it("passes nothing the schema refuses, and returns what the schema returns (fields, values, order)", () => {
    const base = JSON.parse(JSON.stringify({ ...sampleManifest(), devnet: true })) as Json;
    // An edit replaces a field, deletes it, or adds one beside it (an unknown field, a bot, a token, a price feed).
    const at = fc.constantFrom(...pathsOf(base));
    const edit = fc.oneof(
      fc.record({ at, value: tricky }).map(({ at, value }) => (raw: Json) => edited(raw, at, value)),
      at.map((at) => (raw: Json) => edited(raw, at, undefined)),
      fc.record({ at, key: fc.oneof(fc.string(), fc.constantFrom("extra", "default", "USDC", "version", "deployer")), value: tricky }).map(
        ({ at, key, value }) => (raw: Json) => (at.length === 0 ? raw : edited(raw, [...at.slice(0, -1), key], value)),
      ),
    );
    let passed = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 2 }), (edits) => {
        const raw = edits.reduce((value, apply) => apply(value), base);
        if (agrees(raw)) passed += 1;
      }),
      { numRuns: 4000 },
    );
    // The property must have been tested on manifests that pass, not only on ones that fail.
    expect(passed).toBeGreaterThan(100);
  });

  it("leaves a \"__proto__\" key to the schema", () => {
    const text = JSON.stringify(sampleManifest()).replace('"bots":{', '"bots":{"__proto__":{"address":"0x1111111111111111111111111111111111111111","privateKey":"0x2222222222222222222222222222222222222222222222222222222222222222"},');
    expect(plainManifest(JSON.parse(text))).toBeUndefined();
  });
});

describe("readManifest", () => {
  it("reads a well-formed manifest, and names a broken one's first bad field in zod's words", () => {
    const good = path.join(dir, "good.json");
    writeFileSync(good, JSON.stringify(sampleManifest()));
    expect(readManifest(good)).toEqual(manifestSchema.parse(sampleManifest()));
    const bad = path.join(dir, "bad.json");
    const broken = { ...sampleManifest(), contracts: { ...sampleManifest().contracts, vault: "0x1234" } };
    writeFileSync(bad, JSON.stringify(broken));
    const issue = manifestSchema.safeParse(broken).error!.issues[0]!;
    expect(() => readManifest(bad)).toThrow(`devnet manifest ${bad}: contracts.vault ${issue.message}`);
    expect(issue.message).toBe("an address");
  });
});
