// Bundles the CLI into dist/ (run by scripts/toolchain.sh whenever its sources changed; gitignored).
// Started from src/cli/bin.ts, a command such as `relay pay` makes Node resolve, read, type-strip and
// compile ~750 files (viem alone ~370, undici ~110, zod ~95), ~1 s of CPU; the bundle is a few files
// holding only the parts a command reaches. Commands stay lazily loaded: each action's import becomes
// a chunk of its own (splitting), so `relay --version` loads commander and the program, nothing more.
//
// Everything lands flat in dist/ so that code reading `import.meta.url` (src/paths.ts: the checkout
// is the directory above) finds the same checkout from the bundle as from src/. Packages with native
// addons or files found beside their own code (Hardhat, solc, keccak, secp256k1, …) stay external:
// Node loads them from node_modules as before. The long-running `relay serve` and `relay devnet` do not
// run from the bundle at all (bin/relay): they keep their source, their worker threads and their flags.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist");

const external = [
  "hardhat", "hardhat/*", "@nomicfoundation/*", "solc", "keccak", "secp256k1", "secp256k1/*",
  "fastify", "@fastify/*", "pg", "ink", "react", "react/*", "@openzeppelin/*",
  // Loaded by require() when first used (src/chain/json-rpc.ts), which the bundle leaves to Node: the
  // CLI's money commands talk over node:http (json-rpc-http.ts) and do not load undici at all.
  "undici", "undici/*",
];

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { relay: "src/cli/bundle-entry.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22.18",
  outExtension: { ".js": ".mjs" },
  chunkNames: "[name]-[hash]",
  external,
  // Packages written as CommonJS call require() for Node's built-ins; an ES module has none of its own.
  banner: { js: 'import { createRequire as __relayCreateRequire } from "node:module"; const require = __relayCreateRequire(import.meta.url);' },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "error",
});

// The ledger's checkpoint worker (src/ledger/checkpointer.ts) runs in a thread of its own, started
// from a file rather than imported: it gets a file of its own, dist/checkpoint-worker.mjs, beside the
// chunks that start it, so that `relay serve` can run from the bundle too.
await build({
  absWorkingDir: root,
  entryPoints: { "checkpoint-worker": "src/ledger/checkpoint-worker.ts" },
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node22.18",
  outExtension: { ".js": ".mjs" },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "error",
});
