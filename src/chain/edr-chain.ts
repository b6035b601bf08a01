// The in-process chain on EDR, the engine of Hardhat's simulated network, without Hardhat around it.
// Loading Hardhat to create one network costs a start ~0.3 s (hundreds of modules, and deriving the 20
// accounts' addresses in JavaScript), while EDR is one native module. So a local chain is configured
// here as Hardhat 3 configures relay's default network (hardhat.config.ts: `edr-simulated`, cancun),
// and the provider answers as Hardhat's does: it fills a transaction's sender and gas the way Hardhat's
// request handlers do, throws its errors with the same code, message and revert data, and names itself
// the same way to web3_clientVersion. test/chain/edr-chain.test.ts compares it with Hardhat's, request
// by request. A fork still goes through Hardhat (src/chain/hardhat.ts): it needs Hardhat's table of each
// network's hardforks and its fork cache.
import { createRequire } from "node:module";
import type { EIP1193Provider } from "viem";
import type { EdrContext, Provider as EdrProvider, Response as EdrResponse } from "@nomicfoundation/edr";

/** Hardhat's defaults for an `edr-simulated` network, as it resolves them (hardhat/…/edr-constants.js). */
const HARDFORK = "cancun"; // hardhat.config.ts, networks.default.hardfork
const BLOCK_GAS_LIMIT = 60_000_000n;
const COINBASE = "c014ba5ec014ba5ec014ba5ec014ba5ec014ba5e";
/** The installed Hardhat's version, which web3_clientVersion names as Hardhat's network does. */
const hardhatVersion = () => (createRequire(import.meta.url)("hardhat/package.json") as { version: string }).version;

/** JSON-RPC's code for a reverted call or transaction, which Hardhat gives its Solidity errors. */
const REVERT_ERROR_CODE = 3;

export interface EdrChainOptions {
  chainId: number;
  /** [address, private key] of each account the chain funds and signs for. */
  accounts: readonly (readonly [string, string])[];
  balance: bigint;
  miningIntervalMs?: number;
  throwOnTransactionFailures?: boolean;
}

export interface EdrChain {
  provider: EIP1193Provider;
  /** Lets go of the chain: later requests fail, as on Hardhat's closed connection. */
  close(): void;
}

export async function startEdrChain(options: EdrChainOptions): Promise<EdrChain> {
  const edr = await import("@nomicfoundation/edr");
  const context = await edrContext();
  const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ""), "hex"));
  // The funded accounts first, then the hardfork's system contracts (the beacon roots contract).
  const genesisState = [
    ...options.accounts.map(([address]) => ({ address: hexBytes(address), balance: options.balance, code: new Uint8Array() })),
    ...edr.l1GenesisState(edr.l1HardforkFromString(HARDFORK)),
  ];
  const provider = await context.createProvider(
    edr.GENERIC_CHAIN_TYPE,
    {
      // Automine makes a block per transaction; with strictly increasing timestamps a busy devnet's
      // clock would run ahead of the wall clock (one second per block) and expire every deadline.
      allowBlocksWithSameTimestamp: true,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: true,
      // Hardhat's default (true) answers eth_sendRawTransaction with an error when the transaction
      // reverts, although it was mined and its nonce used; false behaves like a real node.
      bailOnTransactionFailure: options.throwOnTransactionFailures ?? true,
      chainId: BigInt(options.chainId),
      coinbase: hexBytes(COINBASE),
      defaultTransactionGasLimit: BLOCK_GAS_LIMIT,
      gasEstimationMode: edr.GasEstimationMode.NoInternalOutOfGas,
      genesisState,
      hardfork: HARDFORK,
      minGasPrice: 0n,
      mining: {
        autoMine: options.miningIntervalMs === undefined,
        blockGasLimit: BLOCK_GAS_LIMIT,
        ...(options.miningIntervalMs === undefined ? {} : { interval: BigInt(options.miningIntervalMs) }),
        memPool: { order: edr.MineOrdering.Priority },
      },
      network: { genesisBlockGasLimit: BLOCK_GAS_LIMIT, genesisBlockTime: BigInt(Math.floor(Date.now() / 1000)) },
      networkId: BigInt(options.chainId),
      observability: { includeCallTraces: edr.IncludeTraces.None },
      ownedAccounts: options.accounts.map(([, privateKey]) => privateKey),
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    edr.ContractDecoder.withContracts({ buildInfos: [], ignoreContracts: false }),
  );
  // The stack trace entries of a revert in a contract the chain cannot name (it is given none).
  const unrecognizedErrors = new Set<number>([edr.StackTraceEntryType.UNRECOGNIZED_CONTRACT_ERROR, edr.StackTraceEntryType.UNRECOGNIZED_CREATE_ERROR]);
  let open: EdrProvider | undefined = provider;
  return {
    provider: hardhatLikeProvider(() => open, options.accounts[0]![0].toLowerCase(), unrecognizedErrors) as unknown as EIP1193Provider,
    close: () => {
      open = undefined;
    },
  };
}

// EDR wants one context per process (it sets up process-wide tracing); every chain shares it.
let context: Promise<EdrContext> | undefined;

function edrContext(): Promise<EdrContext> {
  context ??= import("@nomicfoundation/edr").then(async (edr) => {
    const created = new edr.EdrContext();
    await created.registerProviderFactory(edr.GENERIC_CHAIN_TYPE, edr.genericChainProviderFactory());
    return created;
  });
  return context;
}

type RpcError = { code: number; message: string; data?: unknown };
type StackTraceEntry = { type: number; returnData?: Uint8Array; isInvalidOpcodeError?: boolean };

/** An EIP-1193 provider over EDR's JSON-RPC that behaves as Hardhat's network connection does. */
function hardhatLikeProvider(current: () => EdrProvider | undefined, firstAccount: string, unrecognizedErrors: ReadonlySet<number>) {
  let nextId = 1;

  async function send(method: string, params: unknown[]): Promise<unknown> {
    const provider = current();
    if (provider === undefined) throw new Error("the chain was closed");
    const response = await provider.handleRequest(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }));
    const body = (typeof response.data === "string" ? JSON.parse(response.data) : response.data) as { result?: unknown; error?: RpcError };
    if (body.error !== undefined) throw providerError(method, body.error, response.stackTrace(), unrecognizedErrors);
    return body.result;
  }

  // Hardhat's AutomaticGasHandler: a transaction without gas gets the node's estimate; an estimate that
  // runs out of gas inside (an internal call's 63/64 limit) gets the default gas limit instead, and
  // one that fails to execute at all gets 95% of the block gas limit, so that it is mined and fails.
  async function estimateGas(params: unknown[]): Promise<string> {
    try {
      return (await send("eth_estimateGas", params)) as string;
    } catch (error) {
      if (((error as { data?: { reason?: unknown } }).data as { reason?: unknown } | undefined)?.reason === "InternalCallOutOfGas") {
        return `0x${BLOCK_GAS_LIMIT.toString(16)}`;
      }
      if ((error as Error).message.toLowerCase().includes("execution error")) {
        return `0x${Math.floor(Number(BLOCK_GAS_LIMIT) * 0.95).toString(16)}`;
      }
      throw error;
    }
  }

  // Hardhat's AutomaticGasPriceHandler: a transaction without its fees gets the last block's median
  // tip (at least the node's suggested one, at least 1 wei) and room for the base fee to grow 12.5% a
  // block for three blocks.
  async function fillFees(tx: Record<string, unknown>): Promise<void> {
    if (tx.gasPrice !== undefined || (tx.maxFeePerGas !== undefined && tx.maxPriorityFeePerGas !== undefined)) return;
    const history = (await send("eth_feeHistory", ["0x1", "latest", [50]])) as { baseFeePerGas: string[]; reward: string[][] };
    let tip = BigInt(history.reward[0]![0]!);
    if (tip === 0n) tip = BigInt((await send("eth_maxPriorityFeePerGas", [])) as string);
    if (tip === 0n) tip = 1n;
    let maxFee = tx.maxFeePerGas === undefined ? (BigInt(history.baseFeePerGas.at(-1)!) * 81n) / 64n : BigInt(tx.maxFeePerGas as string);
    const maxTip = tx.maxPriorityFeePerGas === undefined ? tip : BigInt(tx.maxPriorityFeePerGas as string);
    if (maxFee < maxTip) maxFee += maxTip;
    tx.maxFeePerGas = `0x${maxFee.toString(16)}`;
    tx.maxPriorityFeePerGas = `0x${maxTip.toString(16)}`;
  }

  return {
    async request({ method, params }: { method: string; params?: unknown[] }): Promise<unknown> {
      const args = Array.isArray(params) ? [...params] : [];
      const [tx] = args;
      if (typeof tx === "object" && tx !== null && SENDER_METHODS.has(method)) {
        // Hardhat's AutomaticSenderHandler: a call or transaction without `from` is the first account's.
        const filled: Record<string, unknown> = { ...tx };
        if (filled.from === undefined) filled.from = firstAccount;
        args[0] = filled;
        if (method === "eth_sendTransaction") {
          await fillFees(filled);
          if (filled.gas === undefined) filled.gas = await estimateGas(args);
        }
      }
      const result = await send(method, args);
      // Hardhat names itself, with EDR's version: "HardhatNetwork/3.x/@nomicfoundation/edr/0.x".
      if (method === "web3_clientVersion") return `HardhatNetwork/${hardhatVersion()}/@nomicfoundation/edr/${String(result).split("/")[1]}`;
      return result;
    },
  };
}

const SENDER_METHODS: ReadonlySet<string> = new Set(["eth_sendTransaction", "eth_call", "eth_estimateGas"]);

/**
 * The error Hardhat's provider throws for an EDR error (hardhat/…/edr/edr-provider.js): an estimate
 * that an internal call's out-of-gas defeats gets Hardhat's own error; a revert with a stack trace
 * becomes code 3 with the revert data as `data` and Hardhat's message; anything else keeps EDR's
 * code, message and data.
 */
function providerError(method: string, error: RpcError, trace: ReturnType<EdrResponse["stackTrace"]>, unrecognizedErrors: ReadonlySet<number>): Error {
  const data = error.data as { data?: unknown; transactionHash?: unknown; reason?: unknown } | undefined;
  if (method === "eth_estimateGas" && data?.reason === "InternalCallOutOfGas") {
    return Object.assign(new Error(INTERNAL_CALL_OUT_OF_GAS), { code: -32000, data });
  }
  if (typeof data === "object" && data !== null && "data" in data && trace?.kind === "StackTrace") {
    return Object.assign(new Error(revertMessage(trace.entries.at(-1), error.message, unrecognizedErrors)), {
      code: REVERT_ERROR_CODE,
      data: data.data,
      transactionHash: data.transactionHash,
    });
  }
  return Object.assign(new Error(error.message), { code: error.code, data: error.data });
}

const INTERNAL_CALL_OUT_OF_GAS =
  "Gas estimation failed: an internal call runs out of gas regardless of the transaction's gas limit, so no reliable estimate exists. Set an explicit gas limit for the transaction, or set the network's gasEstimationMode to 'topLevelSuccess' to only require the top-level call to succeed.";

const VM_EXCEPTION = "VM Exception while processing transaction: ";

/** Hardhat's words for Solidity's panic codes (@nomicfoundation/hardhat-utils, panic-errors.js). */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x01n, "Assertion error"],
  [0x11n, "Arithmetic operation overflowed outside of an unchecked block"],
  [0x12n, "Division or modulo division by zero"],
  [0x21n, "Tried to convert a value into an enum, but the value was too big or negative"],
  [0x22n, "Incorrectly encoded storage byte array"],
  [0x31n, ".pop() was called on an empty array"],
  [0x32n, "Array accessed at an out-of-bounds or negative index"],
  [0x41n, "Too much memory was allocated, or an array was created that is too large"],
  [0x51n, "Called a zero-initialized variable of internal function type"],
]);

/**
 * Hardhat's message for a revert, from the last entry of its stack trace. The chain knows no contract
 * (relay decodes reverts itself, src/chain/revert-decode.ts), so the entry is an unrecognized
 * contract's or creation's, read from its return data as Hardhat reads it; any other entry keeps
 * EDR's message. A reason string reads as EDR words it, after Hardhat's prefix.
 */
function revertMessage(entry: StackTraceEntry | undefined, edrMessage: string, unrecognizedErrors: ReadonlySet<number>): string {
  if (entry?.returnData === undefined || !unrecognizedErrors.has(entry.type)) return edrMessage;
  const returnData = `0x${Buffer.from(entry.returnData).toString("hex")}`;
  if (returnData.startsWith(ERROR_SELECTOR)) return VM_EXCEPTION + edrMessage.replace(VM_EXCEPTION, "");
  if (returnData.startsWith(PANIC_SELECTOR)) {
    const code = BigInt(`0x${returnData.slice(10) || "0"}`);
    const reason = PANIC_REASONS.get(code);
    const hex = `0x${code.toString(16)}`;
    return VM_EXCEPTION + (reason === undefined ? `reverted with unknown panic code ${hex}` : `reverted with panic code ${hex} (${reason})`);
  }
  if (returnData !== "0x") return `${VM_EXCEPTION}reverted with an unrecognized custom error (return data: ${returnData})`;
  if (entry.isInvalidOpcodeError) return `${VM_EXCEPTION}invalid opcode`;
  return "Transaction reverted without a reason string";
}

/** Error(string) and Panic(uint256). */
const ERROR_SELECTOR = "0x08c379a0";
const PANIC_SELECTOR = "0x4e487b71";
