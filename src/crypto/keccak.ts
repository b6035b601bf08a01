// Keccak-256 on the hot path, through the `keccak` package's native sponge (libkeccak via N-API).
// We drive the sponge object directly and reuse one instance: the package's public API wraps it in
// a stream Transform per hash, which costs more than the hashing. JavaScript is single-threaded
// and every call below is synchronous, so one shared sponge is safe.
// If the native add-on cannot load (a platform without a prebuilt binary), we fall back to viem's
// pure-JS keccak so the relayer still works, only slower; `keccakBackend` says which one is live.
import { createRequire } from "node:module";
import path from "node:path";
import { keccak256 as viemKeccak256 } from "viem";

interface NativeKeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

// Keccak-256: rate 1088 bits, capacity 512. The native squeeze applies the 0x01 padding itself.
const RATE = 1088;
const CAPACITY = 512;

function loadNativeSponge(): NativeKeccakState | undefined {
  try {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve("keccak/package.json"));
    const nodeGypBuild = createRequire(path.join(dir, "package.json"))("node-gyp-build") as (
      dir: string,
    ) => unknown;
    const State = nodeGypBuild(dir);
    if (typeof State !== "function") return undefined;
    return new (State as new () => NativeKeccakState)();
  } catch {
    return undefined;
  }
}

const sponge = loadNativeSponge();

/** "native" when libkeccak is in use, "js" on the pure-JS fallback. */
export const keccakBackend: "native" | "js" = sponge === undefined ? "js" : "native";

/** Keccak-256 of `data`. Returns a fresh 32-byte Buffer the caller may keep. */
export const keccak256: (data: Buffer) => Buffer =
  sponge === undefined
    ? (data) => Buffer.from(viemKeccak256(data, "bytes"))
    : (data) => {
        sponge.initialize(RATE, CAPACITY);
        sponge.absorb(data);
        return sponge.squeeze(32);
      };

/** Keccak-256 of a 0x-prefixed hex string's bytes (the caller checks the hex), as 0x hex. */
export function keccak256Hex(hex: string): `0x${string}` {
  return `0x${keccak256(Buffer.from(hex.slice(2), "hex")).toString("hex")}`;
}
