// The per-test isolation behind relay/testing/vitest, /jest and /node-test: one relay per test file
// (started once, in the framework's before-all hook), a snapshot right after it starts, a revert to
// that snapshot before every test, and stop() after the last. Each test then begins from the state
// the relay started in, on the chain, in the ledger and in the relayer, without a new process.
import { startRelay } from "./index.mjs";

/** How long the start hook may take by default: the first run provisions relay's toolchain. */
const DEFAULT_HOOK_TIMEOUT_MS = 300_000;

/**
 * Registers the hooks with the framework's `hooks` ({ beforeAll, beforeEach, afterAll }, each taking
 * a function and a timeout in ms) and returns the fixture: the started relay's fields, readable once
 * the before-all hook has run.
 */
export function relayFixture(hooks, options = {}) {
  const { hookTimeoutMs = DEFAULT_HOOK_TIMEOUT_MS, ...startOptions } = options;
  let relay;
  let baseline;
  const started = () => {
    if (relay === undefined) throw new Error("the relay is not started yet: read it inside a test or a hook, not at the top of the file");
    return relay;
  };

  hooks.beforeAll(async () => {
    relay = await startRelay({ timeoutMs: hookTimeoutMs, ...startOptions });
    baseline = await relay.snapshot();
  }, hookTimeoutMs);
  hooks.beforeEach(async () => {
    await started().revert(baseline);
  }, hookTimeoutMs);
  hooks.afterAll(async () => {
    await relay?.stop();
  }, hookTimeoutMs);

  return {
    get relay() {
      return started();
    },
    get manifest() {
      return started().manifest;
    },
    get rpcUrl() {
      return started().rpcUrl;
    },
    get relayerUrl() {
      return started().relayerUrl;
    },
    get stateDir() {
      return started().stateDir;
    },
    /** The snapshot every test starts from (taken right after the start). */
    get baseline() {
      started();
      return baseline;
    },
  };
}
