// Compiled contracts, read straight from Hardhat's artifacts/ folder (no Hardhat runtime needed).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Abi, Hex } from "viem";
import { artifactsDir } from "../paths.ts";

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

const cache = new Map<string, Artifact>();

/** `name` is a contract name whose source file has the same name: "ServiceVault", "mocks/MockERC20". */
export function readArtifact(name: string): Artifact {
  let artifact = cache.get(name);
  if (artifact === undefined) {
    const dir = path.dirname(name) === "." ? "" : path.dirname(name);
    const base = path.basename(name);
    const file = path.join(artifactsDir, "contracts", dir, `${base}.sol`, `${base}.json`);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      throw new Error(`no compiled artifact for ${name} (expected ${path.relative(process.cwd(), file)}); run ./bin/relay once to compile`);
    }
    artifact = JSON.parse(text) as Artifact;
    cache.set(name, artifact);
  }
  return artifact;
}
