// Types of relay/testing (index.mjs): start a devnet plus relayer for a bot's test suite, snapshot and
// revert it between tests, and stop it.

/** A key pair of the devnet (test keys only: never use them anywhere else). */
export interface RelayKeyPair {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/** The devnet manifest `relay serve --json` prints and writes to `<stateDir>/devnet.json`. */
export interface RelayManifest {
  version: 1;
  chainId: number;
  rpcUrl: string;
  relayerUrl: string;
  devnet?: boolean;
  domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
  contracts: {
    registry: `0x${string}`;
    factory: `0x${string}`;
    vault: `0x${string}`;
    router: `0x${string}`;
    nft: `0x${string}`;
    marketplace: `0x${string}`;
    lending: `0x${string}`;
    priceFeeds: Record<string, `0x${string}`>;
  };
  /** By symbol, e.g. `tokens.USDC.address`. */
  tokens: Record<string, { address: `0x${string}`; decimals: number }>;
  accounts: {
    owner: RelayKeyPair;
    operator: RelayKeyPair;
    relayer: RelayKeyPair;
    deployer?: RelayKeyPair;
    /** `default` pays without review up to its limits; `reviewed` has every payment held for the owner. */
    bots: { default: RelayKeyPair; reviewed: RelayKeyPair } & Record<string, RelayKeyPair>;
  };
}

export interface StartRelayOptions {
  /** Where the manifest and the relayer's ledger go; default a new temporary directory, removed by stop(). A given one is kept. */
  stateDir?: string;
  /** The devnet's chain id (`--chain-id`); default relay's (84532). */
  chainId?: number;
  /** More `relay serve` flags, e.g. `["--review-window", "60"]`. */
  args?: string[];
  /** Environment for the relay process, over this process's own. */
  env?: Record<string, string>;
  /** Give up (and stop the process) if it is not ready by then; default 300000 ms (a first run provisions relay's toolchain). */
  timeoutMs?: number;
}

export interface StartedRelay {
  manifest: RelayManifest;
  /** The devnet's JSON-RPC URL (= manifest.rpcUrl). */
  rpcUrl: string;
  /** The relayer's base URL (= manifest.relayerUrl). */
  relayerUrl: string;
  /** Absolute path of the state directory in use. */
  stateDir: string;
  /**
   * Takes a snapshot of every chain, the relayer's ledger and its in-memory state (nonces, spend
   * windows, rate-limit buckets, pending reviews, queues, the clock that follows the devnet) together,
   * once the relayer's work under way has been recorded. Resolves with the snapshot's id.
   */
  snapshot(): Promise<RelaySnapshotId>;
  /**
   * Puts all of that back as it was at snapshot `id`: payments made since are undone on the chain and
   * unknown to the relayer. `id` stays valid (revert to it again before the next test); snapshots
   * taken after it are dropped. Rejects for an unknown id.
   */
  revert(id: RelaySnapshotId): Promise<void>;
  /** SIGTERM to the relay process, SIGKILL if it has not exited after 10 s; then removes the temporary state dir. Safe to call twice. */
  stop(): Promise<void>;
}

/** A snapshot's id, e.g. "0x1". */
export type RelaySnapshotId = string;

/** Start `relay serve --port 0 --rpc-port 0 --json` (a fresh devnet and relayer on free ports) and wait until it is ready. */
export function startRelay(options?: StartRelayOptions): Promise<StartedRelay>;

/** `relay.snapshot()`; without `relay`, of the one relay startRelay() started and has not stopped (else it throws). */
export function snapshot(relay?: StartedRelay): Promise<RelaySnapshotId>;

/** `relay.revert(id)`; without `relay`, of the one relay startRelay() started and has not stopped (else it throws). */
export function revert(id: RelaySnapshotId, relay?: StartedRelay): Promise<void>;
