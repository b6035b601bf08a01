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

/**
 * Contracts whose fallback delegatecalls another's code at their own address: the vault serves
 * VaultExtension's functions, events and errors (contracts/vault/VaultExtension.sol), so callers
 * read and decode them with the vault's ABI, as one contract.
 */
const SERVED_BY_FALLBACK: Record<string, string> = { ServiceVault: "vault/VaultExtension" };

/** The signature an ABI item is known by: "function owner()", "event BotAdded(address)". */
function signatureOf(item: Abi[number]): string {
  if (item.type === "constructor" || item.type === "fallback" || item.type === "receive") return item.type;
  return `${item.type} ${item.name}(${item.inputs.map((i) => i.type).join(",")})`;
}

/** `own` then what `served` adds: its functions, events and errors `own` does not already have. */
function withServed(own: Artifact, served: Artifact): Artifact {
  const known = new Set(own.abi.map(signatureOf));
  const added = served.abi.filter((item) => item.type !== "constructor" && !known.has(signatureOf(item)));
  return { ...own, abi: [...own.abi, ...added] };
}

/**
 * `name` is a contract name whose source file has the same name: "ServiceVault", "mocks/MockERC20".
 * The vault's ABI includes its extension's (SERVED_BY_FALLBACK); its bytecode is its own.
 */
export function readArtifact(name: string): Artifact {
  let artifact = cache.get(name);
  if (artifact === undefined) {
    const served = SERVED_BY_FALLBACK[name];
    artifact = served === undefined ? readOwnArtifact(name) : withServed(readOwnArtifact(name), readArtifact(served));
    cache.set(name, artifact);
  }
  return artifact;
}

/** The artifact of `name` as compiled, without what its fallback serves. */
export function readOwnArtifact(name: string): Artifact {
  const dir = path.dirname(name) === "." ? "" : path.dirname(name);
  const base = path.basename(name);
  const file = path.join(artifactsDir, "contracts", dir, `${base}.sol`, `${base}.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`no compiled artifact for ${name} (expected ${path.relative(process.cwd(), file)}); run ./bin/relay once to compile`);
  }
  return JSON.parse(text) as Artifact;
}
