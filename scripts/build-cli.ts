// Bundles the CLI into dist/ (run by scripts/toolchain.sh whenever its sources changed; gitignored).
// Started from src/cli/bin.ts, a command such as `relay pay` makes Node resolve, read, type-strip and
// compile ~750 files (viem alone ~370, undici ~110, zod ~95), ~1 s of CPU; the bundle is a few files
// holding only the parts a command reaches. Commands stay lazily loaded: each action's import becomes
// a chunk of its own (splitting), so `relay --version` loads commander and the program, nothing more.
//
// Everything lands flat in dist/ so that code reading `import.meta.url` (src/paths.ts: the checkout
// is the directory above) finds the same checkout from the bundle as from src/. Packages with native
// addons or files found beside their own code (Hardhat, solc, keccak, secp256k1, …) stay external:
// Node loads them from node_modules as before. Every command runs from the bundle (bin/relay), the
// long-running `relay serve` and `relay devnet` too; the ledger's checkpoint worker, which runs in a
// thread of its own, gets a file of its own (the second build below).
import { build, type Plugin } from "esbuild";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
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

// Some of Node's built-in modules through require(), not import. An ES module importing a built-in
// gets Node's ES facade of it, which reads every export once, lazy getters too: `node:process` then
// loads process.report, worker_threads and readline (~15 ms), `node:fs` fs.promises and its streams
// (~6 ms), `node:util` its diff and parseArgs (~4 ms), `node:http` the WebSocket classes and with
// them Node's own undici (~90 ms). commander alone imports the first three, so every CLI call paid
// for them (the other built-ins' facades cost well under a millisecond more than require()). require()
// hands over the module object and reads nothing. Each import statement of one of these gets a small
// module that requires it, default-exports it and exports its plain values by name. A getter is
// never read until used, so importing one by name fails the build: import the module and read the
// property where it is needed instead.
const builtinsByRequire: Plugin = {
  name: "builtins-by-require",
  setup(b) {
    const load = createRequire(import.meta.url);
    b.onResolve({ filter: /^node:(process|util|fs|http|child_process)$/ }, (args) =>
      // A require() call already gets the module itself; only import statements meet the facade.
      args.kind === "import-statement" && args.namespace !== "builtin" ? { path: args.path, namespace: "builtin" } : undefined);
    b.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => {
      const values = Object.entries(Object.getOwnPropertyDescriptors(load(args.path)))
        .filter(([name, descriptor]) => "value" in descriptor && name !== "default" && isBindingName(name))
        .map(([name]) => name);
      const id = JSON.stringify(args.path);
      return {
        contents: `import { createRequire } from "node:module";\nconst m = createRequire(import.meta.url)(${id});\nexport default m;\nexport const { ${values.join(", ")} } = m;\n`,
        loader: "js",
      };
    });
  },
};

/** Whether `name` may name a constant (not a reserved word). */
function isBindingName(name: string): boolean {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return false;
  try {
    new Function(`const ${name} = 0;`);
    return true;
  } catch {
    return false;
  }
}

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
  plugins: [builtinsByRequire],
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
