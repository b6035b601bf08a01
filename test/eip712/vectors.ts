// Loads the shared golden vectors (/work/shared/vectors/eip712.json, beside the checkout).
import { readFileSync } from "node:fs";
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

export const vectorsPath = path.join(projectRoot, "..", "shared", "vectors", "eip712.json");

export function loadVectors(): Vector[] {
  return (JSON.parse(readFileSync(vectorsPath, "utf8")) as { vectors: Vector[] }).vectors;
}

export function vectorNamed(name: string): Vector {
  const v = loadVectors().find((x) => x.name === name);
  if (!v) throw new Error(`no vector ${name}`);
  return v;
}
