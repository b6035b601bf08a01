// relay/testing: start a devnet plus relayer for a bot's own test suite, and stop it.
//
//   import { startRelay } from "relay/testing";
//   const relay = await startRelay();          // a fresh chain and relayer on free ports
//   … relay.relayerUrl, relay.rpcUrl, relay.manifest.contracts.vault, relay.manifest.accounts.bots.default …
//   const id = await relay.snapshot();         // the chain, the relayer's ledger and its state together
//   … a test pays …
//   await relay.revert(id);                    // all of it back as it was (id stays valid)
//   await relay.stop();                        // SIGTERM, wait, remove the temporary state dir
//
// snapshot(relay?) and revert(id, relay?) are the same calls at module level; without a relay they
// act on the one startRelay() has started and not yet stopped. Ready-made per-test isolation for
// vitest, jest and node:test: relay/testing/vitest, relay/testing/jest, relay/testing/node-test.
//
// Plain JavaScript for Node >= 20 with no loader: it only spawns `<repo>/bin/relay serve --port 0
// --rpc-port 0 --state-dir <dir> --json` (the launcher provisions relay's own Node) and reads the
// manifest that command prints on stdout once it is ready.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const RELAY = fileURLToPath(new URL("../bin/relay", import.meta.url));

/** How long stop() waits after SIGTERM before it sends SIGKILL. */
const STOP_GRACE_MS = 10_000;

/** The relays started here and not yet stopped: what module-level snapshot() and revert() act on. */
const running = new Set();

/**
 * Start `relay serve` on free ports. Resolves once the relayer answers, with the devnet manifest and
 * a stop() to call when done (e.g. in afterAll). Rejects with relay's own `relay: …` line when the
 * command fails, or after `timeoutMs` (default 5 minutes: the first run provisions relay's toolchain).
 */
export async function startRelay(options = {}) {
  const { chainId, args = [], env = {}, timeoutMs = 300_000 } = options;
  const created = options.stateDir === undefined ? await mkdtemp(path.join(tmpdir(), "relay-testing-")) : undefined;
  const stateDir = path.resolve(options.stateDir ?? created);
  const argv = ["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--json"];
  if (chainId !== undefined) argv.push("--chain-id", String(chainId));
  argv.push(...args);

  // The token that enables relay_snapshot and relay_revert on the devnet's RPC server: only this
  // process knows it (an environment variable, which other users cannot read).
  const token = randomBytes(32).toString("hex");
  const child = spawn(RELAY, argv, { env: { ...process.env, ...env, RELAY_TESTING_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  // Should the test runner exit without stop(), the relayer does not outlive it.
  const killOnExit = () => {
    child.kill("SIGKILL");
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
  };
  process.once("exit", killOnExit);

  const stderr = [];
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => {
    stderr.push(...text.split("\n").filter((line) => line !== ""));
    if (stderr.length > 200) stderr.splice(0, stderr.length - 200);
  });

  let stopping;
  let relay;
  const stop = () => {
    running.delete(relay);
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      process.removeListener("exit", killOnExit);
      if (created !== undefined) await rm(created, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    const manifest = await readyManifest(child, exited, stderr, timeoutMs);
    const call = (method, params) => rpcCall(manifest.rpcUrl, method, [token, ...params]);
    relay = {
      manifest,
      rpcUrl: manifest.rpcUrl,
      relayerUrl: manifest.relayerUrl,
      stateDir,
      snapshot: () => call("relay_snapshot", []),
      revert: async (id) => void (await call("relay_revert", [id])),
      stop,
    };
    running.add(relay);
    return relay;
  } catch (error) {
    await stop();
    throw error;
  }
}

// The first JSON line on stdout: `relay serve --json` prints the manifest once the relayer is ready.
function readyManifest(child, exited, stderr, timeoutMs) {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => reject(startError(`did not become ready within ${timeoutMs} ms`, stderr)), timeoutMs);
    const done = (settle) => {
      clearTimeout(timer);
      settle();
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      buffered += text;
      let newline;
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (!line.startsWith("{")) continue;
        try {
          const manifest = JSON.parse(line);
          if (typeof manifest.rpcUrl === "string" && typeof manifest.relayerUrl === "string") return done(() => resolve(manifest));
        } catch {
          // not the manifest line
        }
      }
    });
    child.once("error", (error) => done(() => reject(startError(`could not run ${RELAY}: ${error.message}`, stderr))));
    exited.then(({ code, signal }) => done(() => reject(startError(`exited before it was ready (${signal ?? `exit code ${code}`})`, stderr))));
  });
}

// relay's own one-line reason (`relay: …`) when it gave one, else what it printed last.
function startError(what, stderr) {
  const reason = [...stderr].reverse().find((line) => line.startsWith("relay: ") && !line.startsWith("relay: ready"));
  const detail = reason ?? stderr.slice(-5).join("\n");
  return new Error(`relay serve ${what}${detail ? `: ${detail}` : ""}`);
}

/** Snapshot of `relay` (default: the one relay started and not stopped): see StartedRelay.snapshot. */
export function snapshot(relay) {
  return (relay ?? soleRelay("snapshot")).snapshot();
}

/** Reverts `relay` (default: the one relay started and not stopped) to snapshot `id`: see StartedRelay.revert. */
export function revert(id, relay) {
  return (relay ?? soleRelay("revert")).revert(id);
}

function soleRelay(what) {
  if (running.size === 1) return [...running][0];
  const why = running.size === 0 ? "no relay is running (startRelay() first)" : `${running.size} relays are running (pass the one you mean)`;
  throw new Error(`${what}(): ${why}`);
}

// One JSON-RPC call to the devnet's RPC server; an error answer rejects with its message.
async function rpcCall(rpcUrl, method, params) {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await response.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
