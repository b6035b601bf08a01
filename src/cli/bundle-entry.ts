// The bundle's entry point (scripts/build-cli.ts makes it dist/relay.mjs, which bin/relay runs for every
// command but `serve` and `devnet`). Before anything else is loaded it turns on Node's compile cache in
// dist/.compile-cache: V8's compiled code for the bundle's chunks is kept there, so that a call after
// the first skips compiling them (about a third of a light command's start-up). The cache lives and
// dies with the bundle: a rebuild empties dist/.
import { enableCompileCache } from "node:module";
import { fileURLToPath } from "node:url";

// A cache that cannot be written (a read-only checkout) only costs speed: the status is not checked.
enableCompileCache(fileURLToPath(new URL("./.compile-cache", import.meta.url)));
await import("./bin.ts");
