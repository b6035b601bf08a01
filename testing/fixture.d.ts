// Types shared by relay/testing/vitest, /jest and /node-test.
import type { RelayManifest, RelaySnapshotId, StartRelayOptions, StartedRelay } from "./index.js";

export interface UseRelayOptions extends StartRelayOptions {
  /** The time the framework gives the start, revert and stop hooks; default 300000 ms (a first run provisions relay's toolchain). */
  hookTimeoutMs?: number;
}

/**
 * The file's relay, readable inside tests and hooks (reading it before the start hook has run
 * throws). Every test begins from the state right after the start: the hooks revert to it.
 */
export interface RelayFixture {
  readonly relay: StartedRelay;
  readonly manifest: RelayManifest;
  readonly rpcUrl: string;
  readonly relayerUrl: string;
  readonly stateDir: string;
  /** The snapshot every test starts from. */
  readonly baseline: RelaySnapshotId;
}

export interface FixtureHooks {
  beforeAll(fn: () => Promise<void>, timeoutMs: number): void;
  beforeEach(fn: () => Promise<void>, timeoutMs: number): void;
  afterAll(fn: () => Promise<void>, timeoutMs: number): void;
}

export function relayFixture(hooks: FixtureHooks, options?: UseRelayOptions): RelayFixture;
