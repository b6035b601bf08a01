// The EIP-712 golden vectors that the relayer's hashing and recovery, the contracts' hashing and
// the client's signing must all reproduce. The design's copy (../shared/vectors/eip712.json, beside
// the checkout) is used when present; otherwise this repository's copy in test/fixtures, which
// test/support/vectors.test.ts keeps identical to it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Address, Hex } from "viem";
import { projectRoot } from "../../src/paths.ts";

export interface Vector {
  name: string;
  privateKey: Hex;
  signer: Address;
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
  domainSeparator: Hex;
  digest: Hex;
  signature: Hex;
}

export const sharedVectorsPath = path.join(projectRoot, "..", "shared", "vectors", "eip712.json");
export const fixtureVectorsPath = path.join(projectRoot, "test", "fixtures", "eip712-vectors.json");
export const vectorsPath = existsSync(sharedVectorsPath) ? sharedVectorsPath : fixtureVectorsPath;

export function loadVectors(): Vector[] {
  return (JSON.parse(readFileSync(vectorsPath, "utf8")) as { vectors: Vector[] }).vectors;
}

export function vectorNamed(name: string): Vector {
  const v = loadVectors().find((x) => x.name === name);
  if (!v) throw new Error(`no vector ${name}`);
  return v;
}
