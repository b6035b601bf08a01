// One served chain at run time: its clients, contracts, relayer keys, and the reads the request
// path needs (the vault's EIP-712 domain, cached; policy snapshots, one eth_call for one or many requests).
import {
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAbiItem,
  zeroAddress,
  zeroHash,
  type AbiFunction,
  type Address,
  type EIP1193Provider,
  type Hex,
} from "viem";
import { addressOfKey } from "../../crypto/key-address.ts";
import { readArtifact } from "../../chain/artifacts.ts";
import { clientsFor, type Clients } from "../../chain/clients.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import { readVaultDomain } from "../../../packages/client/src/sign.ts";
import type { ChainConfig } from "../config.ts";
import { rpcFailure } from "../rpc-errors.ts";
import { decodeSnapshots } from "./snapshot-codec.ts";
import type { PolicySnapshot } from "./snapshot.ts";
import { decodeReadAndSimulate, readAndSimulateCalldata, type LensQuery } from "./simulating-lens-codec.ts";
import { BlockWatch } from "./block-watch.ts";
import { DELEGATION_TO_LENS, WHOLE_LENS_CODE, lensOverrideCode } from "./lens-code.ts";

/** What a call would take out of the vault, by simulateOutflows. */
export interface OutflowSimulation {
  ok: boolean;
  /** Return data when `ok`, else revert data. */
  result: Hex;
  /** Per token asked about, in order: how much the vault's balance fell (0 when it rose). */
  outflows: bigint[];
  ethOutflow: bigint;
}

/** A transaction to simulate along with the snapshots, as relayer key `from` would send it. */
export interface SimulationCall {
  from: Address;
  to: Address;
  data: Hex;
}

/** A simulation's outcome: its return data when `ok`, else its revert data. */
export interface SimulationOutcome {
  ok: boolean;
  result: Hex;
}

export interface SnapshotQuery {
  vault: Address;
  bot: Address;
  to?: Address;
  tokens: readonly Address[];
  amounts: readonly bigint[];
  intentHash: Hex;
  protocol?: Address;
  toToken?: Address;
}

const vaultAbi = readArtifact("ServiceVault").abi;
const lens = readArtifact("lens/PolicyLens");
const lensConstructor = lens.abi.find((item) => item.type === "constructor")!;
const simulatingLens = readArtifact("lens/SimulatingLens");
/**
 * Runtime code that returns the block number it runs at (NUMBER, MSTORE, RETURN): the probe for
 * state overrides, which also checks that a call at "latest" runs at the latest block's number.
 */
const OVERRIDE_PROBE_CODE = "0x4360005260206000f3";
const OVERRIDE_PROBE_ADDRESS = "0x00000000000000000000000000000000000042aa";
/**
 * Queries per deployless lens call: a snapshot encodes to about 1.4 KiB, and up to 2.2 KiB when the
 * bot and the vault each have 5 spending limits; the output must stay under 24 KiB (10 × 2.2 KiB).
 */
const LENS_QUERIES = 10;
export class ChainRuntime {
  readonly chainId: number;
  readonly config: ChainConfig;
  readonly clients: Clients;
  /** The relayer keys' accounts, by address (each Submitter signs with its key, crypto/sign-transaction.ts). */
  readonly signers: readonly { readonly address: Address }[];
  /** New blocks, for whoever waits for a receipt (block-watch.ts). */
  readonly blocks: BlockWatch;
  readonly #domains = new Map<string, VaultDomain>();
  #stateOverride: Promise<boolean> | undefined;
  /** The code placed at the keys for a lens call, once known (lens-code.ts); #lensCodeAsked while being asked. */
  #lensCode: Hex | undefined;
  #lensCodeAsked: Promise<Hex> | undefined;

  constructor(config: ChainConfig, provider?: EIP1193Provider) {
    this.chainId = config.chainId;
    this.config = config;
    this.clients = clientsFor(provider ?? config.rpcUrl, config.chainId, { timeoutMs: config.rpcTimeoutMs });
    this.signers = config.relayerKeys.map((key) => ({ address: addressOfKey(key as Hex) }));
    this.blocks = new BlockWatch(() => this.latestBlock(), provider ? undefined : config.rpcUrl);
  }

  /** Stops watching for blocks (shutting down). */
  close(): void {
    this.blocks.close();
  }

  get devnet(): boolean {
    return this.config.devnet;
  }

  /** Whether the vault's domain is already known (the vault was seen before). */
  knowsDomain(vault: Address): boolean {
    return this.#domains.has(vault.toLowerCase());
  }

  /** The vault's EIP-712 domain (EIP-5267), read once per vault: it never changes. */
  async domainOf(vault: Address): Promise<VaultDomain> {
    const key = vault.toLowerCase();
    const known = this.#domains.get(key);
    if (known) return known;
    const domain = await rpcFailure(() => readVaultDomain(this.clients.publicClient, vault));
    this.#domains.set(key, domain);
    return domain;
  }

  /** The vault's checkDestination(bot, to) at `blockNumber`: whether its rules let the bot pay `to`, and why not. */
  async checkDestination(vault: Address, bot: Address, to: Address, blockNumber: bigint): Promise<{ allowed: boolean; reason: string }> {
    const [allowed, reason] = await rpcFailure(() =>
      this.clients.publicClient.readContract({ address: vault, abi: vaultAbi, functionName: "checkDestination", args: [bot, to], blockNumber }),
    ) as readonly [boolean, string];
    return { allowed, reason };
  }

  /** The latest block's number: the block a request's reads and simulation are pinned to. */
  async latestBlock(): Promise<bigint> {
    return rpcFailure(() => this.clients.publicClient.getBlockNumber({ cacheTime: 0 }));
  }

  /**
   * The timestamp (unix seconds) the node would give a block mined now: its pending block's. On a
   * development node, its wall second plus its offset, which time travel adds to (relayer/clock.ts).
   */
  async nextBlockTimestamp(): Promise<bigint> {
    return (await rpcFailure(() => this.clients.publicClient.getBlock({ blockTag: "pending" }))).timestamp;
  }

  /** Everything one request's checks need, read at `blockNumber` (default: the latest) in one deployless eth_call. */
  async snapshot(query: SnapshotQuery, blockNumber?: bigint): Promise<PolicySnapshot> {
    return (await this.snapshots([query], blockNumber))[0]!;
  }

  /**
   * The snapshots of several queries, in order, all at `blockNumber`: one deployless eth_call per
   * LENS_QUERIES queries (a deployless call's output is bounded like a contract's code, 24 KiB).
   */
  async snapshots(queries: readonly SnapshotQuery[], blockNumber?: bigint): Promise<PolicySnapshot[]> {
    if (queries.length <= LENS_QUERIES) return this.#lens(queries, blockNumber);
    const chunks: SnapshotQuery[][] = [];
    for (let i = 0; i < queries.length; i += LENS_QUERIES) chunks.push(queries.slice(i, i + LENS_QUERIES));
    return (await Promise.all(chunks.map((chunk) => this.#lens(chunk, blockNumber)))).flat();
  }

  /**
   * Whether readAndSimulate can be used: the node runs eth_call with state overrides, and a call at
   * "latest" sees the latest block's number. Asked once; after an unreachable node, asked again.
   */
  async supportsStateOverride(): Promise<boolean> {
    this.#stateOverride ??= this.#probeStateOverride().catch((error: unknown) => {
      this.#stateOverride = undefined;
      throw error;
    });
    return this.#stateOverride;
  }

  /** The code placed at the keys for a lens call: asked once (lens-code.ts); after an unreachable node, asked again. */
  #lensOverride(): Promise<Hex> {
    this.#lensCodeAsked ??= lensOverrideCode(this.clients.publicClient).then(
      (code) => (this.#lensCode = code),
      (error: unknown) => {
        this.#lensCodeAsked = undefined;
        throw error;
      },
    );
    return this.#lensCodeAsked;
  }

  /**
   * `call`'s answer with the lens's code (or the delegation to it) placed by `call`. A delegated call
   * that answers nothing found no lens where it ran (a chain reset under a running relayer, or a block
   * before the lens's deployment): it is made again with the whole code, and the next call asks again
   * which code to place.
   */
  async #withLens(call: (code: Hex) => Promise<unknown>): Promise<Hex> {
    const code = this.#lensCode ?? (await this.#lensOverride());
    let out = await call(code);
    if ((out === undefined || out === "0x") && code === DELEGATION_TO_LENS) {
      this.#lensCode = undefined;
      this.#lensCodeAsked = undefined;
      out = await call(WHOLE_LENS_CODE);
    }
    if (typeof out !== "string" || out === "0x") throw new Error("the simulating lens returned no data");
    return out as Hex;
  }

  async #probeStateOverride(): Promise<boolean> {
    const client = this.clients.publicClient;
    const [probe, latest] = await Promise.all([
      rpcFailure(() => client.call({ to: OVERRIDE_PROBE_ADDRESS, stateOverride: [{ address: OVERRIDE_PROBE_ADDRESS, code: OVERRIDE_PROBE_CODE }] })).then(
        ({ data }) => (data === undefined || data === "0x" ? undefined : BigInt(data)),
        (error: unknown) => {
          if ((error as { code?: string }).code === "RPC_ERROR") throw error;
          return undefined; // the node refused the override
        },
      ),
      this.latestBlock(),
    ]);
    // The probe ran at the latest block, or one before it when a block was mined meanwhile.
    return probe !== undefined && (probe === latest || probe + 1n === latest);
  }

  /**
   * The snapshots of `queries` and the outcome of each simulation, from one eth_call on the latest
   * state: SimulatingLens runs at the relayer keys' addresses (a state override), and every
   * simulation starts from the state the snapshots were read at, whose block is in each snapshot.
   * Only where supportsStateOverride() holds.
   */
  async readAndSimulate(
    queries: readonly SnapshotQuery[],
    simulations: readonly SimulationCall[],
  ): Promise<{ snapshots: PolicySnapshot[]; outcomes: readonly SimulationOutcome[] }> {
    const entry = simulations[0]?.from ?? this.signers[0]?.address ?? OVERRIDE_PROBE_ADDRESS;
    const keys = new Set([entry, ...simulations.map((sim) => sim.from)].map((address) => address.toLowerCase() as Address));
    const data = readAndSimulateCalldata(
      queries.map((query) => this.#lensQuery(query)),
      simulations.map(({ from, to, data }) => ({ from, to, data })),
    );
    // eth_call straight through the transport (what viem's call action sends, without its
    // per-call checks of the override code): the lens, or a delegation to it, at every key's address.
    const out = await this.#withLens((code) => {
      const overrides: Record<Address, { code: Hex }> = {};
      for (const address of keys) overrides[address] = { code };
      return rpcFailure(() => this.clients.publicClient.request({ method: "eth_call", params: [{ to: entry, data }, "latest", overrides] }));
    });
    const { snapshots: encoded, outcomes } = decodeReadAndSimulate(out);
    const snapshots = decodeSnapshots(encoded);
    if (snapshots.length !== queries.length) throw new Error(`the simulating lens returned ${snapshots.length} snapshots for ${queries.length} queries`);
    if (outcomes.length !== simulations.length) throw new Error(`the simulating lens returned ${outcomes.length} outcomes for ${simulations.length} simulations`);
    return { snapshots, outcomes };
  }

  /**
   * Simulates `data` sent to `vault` by relayer key `from` at `blockNumber`, and what it takes out of
   * the vault: each of `tokens`' balance decrease and ETH's. One eth_call with SimulatingLens at
   * `from`'s address (a state override, like readAndSimulate), so the vault sees the key that would
   * send it; nothing persists. Undefined on a node without state overrides.
   */
  async simulateOutflows(
    from: Address,
    vault: Address,
    data: Hex,
    tokens: readonly Address[],
    blockNumber: bigint,
  ): Promise<OutflowSimulation | undefined> {
    if (!(await this.supportsStateOverride())) return undefined;
    const call = encodeFunctionData({ abi: simulatingLens.abi, functionName: "simulateOutflows", args: [vault, data, tokens] });
    const out = await this.#withLens(async (code) => {
      const { data } = await rpcFailure(() => this.clients.publicClient.call({ to: from, data: call, blockNumber, stateOverride: [{ address: from, code }] }));
      return data;
    });
    const [ok, result, outflows, ethOutflow] = decodeFunctionResult({ abi: simulatingLens.abi, functionName: "simulateOutflows", data: out }) as readonly [
      boolean,
      Hex,
      readonly bigint[],
      bigint,
    ];
    return { ok, result, outflows: [...outflows], ethOutflow };
  }

  /** A query as the lens's Query struct. */
  #lensQuery(query: SnapshotQuery): LensQuery {
    return {
      factory: this.config.factory,
      vault: query.vault,
      bot: query.bot,
      to: query.to ?? zeroAddress,
      tokens: query.tokens,
      amounts: query.amounts,
      intentHash: query.intentHash ?? zeroHash,
      protocol: query.protocol ?? zeroAddress,
      toToken: query.toToken ?? zeroAddress,
    };
  }

  async #lens(queries: readonly SnapshotQuery[], blockNumber?: bigint): Promise<PolicySnapshot[]> {
    const data = encodeDeployData({
      abi: [lensConstructor],
      bytecode: lens.bytecode,
      args: [queries.map((query) => this.#lensQuery(query))],
    });
    const { data: out } = await rpcFailure(() => this.clients.publicClient.call({ data, blockNumber }));
    if (out === undefined) throw new Error("policy lens returned no data");
    const snapshots = decodeSnapshots(out);
    if (snapshots.length !== queries.length) throw new Error(`policy lens returned ${snapshots.length} snapshots for ${queries.length} queries`);
    return snapshots;
  }
}

export function functionAbi(contract: string, name: string): AbiFunction {
  return getAbiItem({ abi: readArtifact(contract).abi, name }) as AbiFunction;
}
