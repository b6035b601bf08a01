// The owner's side of a vault from code, on a viem wallet client: deploy (at a predictable address),
// bots and their limits, funds in and out, the operator and its ceilings, ownership, pause,
// destinations, blacklist, protocols, the rebalance list, and the whole policy in one read.
//
//   const vault = await deployVault({ wallet, publicClient, factory });
//   const owner = new VaultOwner({ wallet, publicClient, vault });
//   await owner.addBot(bot, { maxPerTx: "50", spendingLimits: [{ amount: "200", windowSeconds: 86_400 }] });
//   await owner.deposit(usdc, "1000", { ref: "initial funding" });
//
// Money limits are USD in plain decimal strings ("12.5"; "0" = not set); token amounts are in the
// token's own units (its decimals() read from the chain, 18 for ETH) or bigint base units. Every
// write is simulated first (a refusal throws with the vault's error, nothing sent), then sent with
// the gas estimate plus headroom (gas.ts) and awaited to its receipt; a reverted receipt throws.
import { erc20Abi, parseEventLogs, zeroAddress, zeroHash, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from "viem";
import { ownerFactoryAbi, ownerVaultAbi } from "./owner-abi.ts";
import { refFromString } from "./sign.ts";
import { formatUnits, parseUnits } from "./units.ts";
import { gasWithHeadroom } from "./gas.ts";

/** The vault's policy amounts are USD with 6 decimals. */
const USD_DECIMALS = 6;
/** The token address that names native ETH (address(0) does too). */
export const NATIVE_ETH: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";

/** A wallet client with its account and chain set: the owner's (or, for deposits, anyone's). */
export type OwnerWallet = WalletClient<Transport, Chain, Account>;

/** A spend limit: at most `amount` USD (and, when set, `maxCount` requests) per `windowSeconds`. */
export interface SpendingLimitInput {
  amount: string;
  windowSeconds: number;
  maxCount?: number;
}

/** A bot's policy, USD amounts in plain decimals; anything left out is "not set" (or false). */
export interface BotPolicyInput {
  maxPerTx?: string;
  maxRebalance?: string;
  spendingLimits?: SpendingLimitInput[];
  aiTriggerThreshold?: string;
  requireAiVerification?: boolean;
  requireHumanReview?: boolean;
}

/** A bot's policy as the vault holds it, in human units ("0" = not set). */
export interface BotPolicy {
  maxPerTx: string;
  maxRebalance: string;
  spendingLimits: Required<SpendingLimitInput>[];
  aiTriggerThreshold: string;
  requireAiVerification: boolean;
  requireHumanReview: boolean;
}

/** What the operator may add (USD; maxOperatorBots a count, 0 = none). 0 elsewhere = no bound. */
export interface OperatorCeilingsInput {
  maxPerTx?: string;
  maxBotDaily?: string;
  maxOperatorBots?: number;
  vaultDailyAggregate?: string;
  minAiTriggerFloor?: string;
}

/** The vault's whole policy and roles, read at one block. */
export interface VaultState {
  vault: Address;
  blockNumber: bigint;
  owner: Address;
  pendingOwner: Address | null;
  operator: Address | null;
  paused: boolean;
  operatorCeilings: Required<OperatorCeilingsInput>;
  bots: { address: Address; policy: BotPolicy; destinations: Address[]; addedByOperator: Address | null }[];
  vaultLimits: Required<SpendingLimitInput>[];
  globalDestinations: Address[];
  blacklistCount: number;
  rebalanceTokens: Address[];
  maxSwapSlippageBps: number;
  scanners: Address[];
}

/** Token amount: bigint base units, or a plain decimal in the token's units. */
export type TokenAmount = bigint | string;

type RawLimit = { amount: bigint; maxCount: bigint; windowSeconds: bigint };
type RawPolicy = { maxPerTxAmount: bigint; maxRebalanceAmount: bigint; spendingLimits: readonly RawLimit[]; aiTriggerThreshold: bigint; requireAiVerification: boolean; requireHumanReview: boolean };

const usd = (human: string | undefined) => (human === undefined ? 0n : parseUnits(human, USD_DECIMALS));
const human = (raw: bigint) => formatUnits(raw, USD_DECIMALS);
const orNull = (a: Address) => (a === zeroAddress ? null : a);
const isEth = (token: Address) => token === zeroAddress || token.toLowerCase() === NATIVE_ETH.toLowerCase();

function rawLimits(limits: SpendingLimitInput[] | undefined): RawLimit[] {
  return (limits ?? []).map((l) => {
    if (!Number.isInteger(l.windowSeconds) || l.windowSeconds < 0) throw new Error(`windowSeconds must be a whole number of seconds, got ${l.windowSeconds}`);
    return { amount: usd(l.amount), maxCount: BigInt(l.maxCount ?? 0), windowSeconds: BigInt(l.windowSeconds) };
  });
}

const humanLimits = (limits: readonly RawLimit[]): Required<SpendingLimitInput>[] =>
  limits.map((l) => ({ amount: human(l.amount), windowSeconds: Number(l.windowSeconds), maxCount: Number(l.maxCount) }));

/** `input` as the vault's BotConfigParams. */
export function botPolicyParams(input: BotPolicyInput): RawPolicy {
  return {
    maxPerTxAmount: usd(input.maxPerTx),
    maxRebalanceAmount: usd(input.maxRebalance),
    spendingLimits: rawLimits(input.spendingLimits),
    aiTriggerThreshold: usd(input.aiTriggerThreshold),
    requireAiVerification: input.requireAiVerification ?? false,
    requireHumanReview: input.requireHumanReview ?? false,
  };
}

function humanPolicy(raw: RawPolicy): BotPolicy {
  return {
    maxPerTx: human(raw.maxPerTxAmount),
    maxRebalance: human(raw.maxRebalanceAmount),
    spendingLimits: humanLimits(raw.spendingLimits),
    aiTriggerThreshold: human(raw.aiTriggerThreshold),
    requireAiVerification: raw.requireAiVerification,
    requireHumanReview: raw.requireHumanReview,
  };
}

/** A deposit's reference: a 32-byte hex as is, other text hashed (refFromString). */
const refOf = (ref: string | undefined): Hex => (ref === undefined ? zeroHash : /^0x[0-9a-fA-F]{64}$/.test(ref) ? (ref as Hex) : refFromString(ref));

/**
 * Simulate, send, await: the transaction's hash; throws on a refusal or a reverted receipt. The gas
 * limit is the estimate with headroom (gas.ts): mined a block later, a policy update can cost more.
 */
async function send(wallet: OwnerWallet, publicClient: PublicClient, address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[], value?: bigint): Promise<Hex> {
  const call = { address, abi, functionName, args, account: wallet.account, value } as never;
  const { request } = await publicClient.simulateContract(call);
  const gas = gasWithHeadroom(await publicClient.estimateContractGas(call));
  const hash = await wallet.writeContract({ ...(request as object), gas } as never);
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${functionName} reverted (${hash})`);
  return hash;
}

/** The address `owner`'s vault number `nonce` has (deployed or not); without `nonce`, its next one. */
export async function predictVaultAddress(publicClient: PublicClient, factory: Address, owner: Address, nonce?: number | bigint): Promise<Address> {
  const n = nonce === undefined ? await publicClient.readContract({ address: factory, abi: ownerFactoryAbi, functionName: "ownerVaultCount", args: [owner] }) : BigInt(nonce);
  return publicClient.readContract({ address: factory, abi: ownerFactoryAbi, functionName: "predictVaultAddress", args: [owner, n] });
}

/** Deploys a vault owned by the wallet's account; its address (predictVaultAddress's answer before). */
export async function deployVault(options: { wallet: OwnerWallet; publicClient: PublicClient; factory: Address }): Promise<Address> {
  const { wallet, publicClient, factory } = options;
  const hash = await send(wallet, publicClient, factory, ownerFactoryAbi, "deployVault", []);
  const receipt = await publicClient.getTransactionReceipt({ hash });
  const [event] = parseEventLogs({ abi: ownerFactoryAbi, logs: receipt.logs, eventName: "VaultDeployed" });
  if (event === undefined) throw new Error(`deployVault emitted no VaultDeployed event (${hash})`);
  return event.args.vault;
}

/** One vault, driven by its owner's wallet (deposits: anyone's). */
export class VaultOwner {
  readonly vault: Address;
  readonly #wallet: OwnerWallet;
  readonly #publicClient: PublicClient;

  constructor(options: { wallet: OwnerWallet; publicClient: PublicClient; vault: Address }) {
    this.vault = options.vault;
    this.#wallet = options.wallet;
    this.#publicClient = options.publicClient;
  }

  #call(functionName: string, args: readonly unknown[] = [], value?: bigint): Promise<Hex> {
    return send(this.#wallet, this.#publicClient, this.vault, ownerVaultAbi, functionName, args, value);
  }

  #read<T>(functionName: string, args: readonly unknown[] = [], blockNumber?: bigint): Promise<T> {
    return this.#publicClient.readContract({ address: this.vault, abi: ownerVaultAbi, functionName, args, blockNumber } as never) as Promise<T>;
  }

  async #baseUnits(token: Address, amount: TokenAmount): Promise<bigint> {
    if (typeof amount === "bigint") return amount;
    const decimals = isEth(token) ? 18 : await this.#publicClient.readContract({ address: token, abi: erc20Abi, functionName: "decimals" });
    return parseUnits(amount, decimals);
  }

  // ----------------------------------------------------------------- bots

  /** Activates `bot` with `policy` (owner; or the operator's wallet within its ceilings). */
  async addBot(bot: Address, policy: BotPolicyInput): Promise<Hex> {
    return this.#call("addBotWithPolicy", [bot, botPolicyParams(policy)]);
  }

  /** Changes what `changes` names of active `bot`'s policy, keeping the rest (owner only). */
  async updateBot(bot: Address, changes: BotPolicyInput): Promise<Hex> {
    const current = await this.bot(bot);
    if (!current.active) throw new Error(`bot ${bot} is not active on vault ${this.vault}`);
    return this.#call("updateBotPolicy", [bot, botPolicyParams({ ...current.policy, ...changes })]);
  }

  /** Deactivates `bot` (owner or operator). */
  removeBot(bot: Address): Promise<Hex> {
    return this.#call("removeBot", [bot]);
  }

  /** Whether `bot` is active, and its policy. */
  async bot(bot: Address): Promise<{ active: boolean; policy: BotPolicy }> {
    const [active, raw] = await Promise.all([this.#read<boolean>("isBotActive", [bot]), this.#read<RawPolicy>("getBotPolicy", [bot])]);
    return { active, policy: humanPolicy(raw) };
  }

  /** Sets the vault-wide spend limits over all bots (owner only; [] removes them). */
  async setVaultLimits(limits: SpendingLimitInput[]): Promise<Hex> {
    return this.#call("setVaultSpendingLimits", [rawLimits(limits)]);
  }

  // ----------------------------------------------------------------- funds

  /** Funds the vault from this wallet (anyone may): approves an ERC-20 first; ETH goes as value. */
  async deposit(token: Address, amount: TokenAmount, options: { ref?: string } = {}): Promise<Hex> {
    const base = await this.#baseUnits(token, amount);
    if (!isEth(token)) await send(this.#wallet, this.#publicClient, token, erc20Abi, "approve", [this.vault, base]);
    return this.#call("deposit", [token, base, refOf(options.ref)], isEth(token) ? base : undefined);
  }

  /** The vault's Deposited events: who, what, how much, with which ref. */
  async deposits(fromBlock = 0n): Promise<{ from: Address; token: Address; amount: bigint; ref: Hex; txHash: Hex }[]> {
    const logs = await this.#publicClient.getContractEvents({ address: this.vault, abi: ownerVaultAbi, eventName: "Deposited", fromBlock });
    return logs.map((l) => ({ ...(l.args as { from: Address; token: Address; amount: bigint; ref: Hex }), txHash: l.transactionHash }));
  }

  /** Sends `amount` of `token` (ETH: NATIVE_ETH) to `to` (owner only). */
  async withdraw(token: Address, amount: TokenAmount, to: Address): Promise<Hex> {
    return this.#call("withdraw", [token, await this.#baseUnits(token, amount), to]);
  }

  /** Sends ERC-721 `tokenId` of `nft` to `to` (owner only). */
  withdrawNft(nft: Address, tokenId: bigint, to: Address): Promise<Hex> {
    return this.#call("withdrawERC721", [nft, tokenId, to]);
  }

  /** Sends `amount` of ERC-1155 `id` of `token` to `to` (owner only). */
  withdrawErc1155(token: Address, id: bigint, amount: bigint, to: Address): Promise<Hex> {
    return this.#call("withdrawERC1155", [token, id, amount, to]);
  }

  // ----------------------------------------------------------------- roles

  /** Sets the operator (null clears it; owner only). */
  setOperator(operator: Address | null): Promise<Hex> {
    return this.#call("setOperator", [operator ?? zeroAddress]);
  }

  /** Sets what the operator may add (owner only). */
  async setOperatorCeilings(ceilings: OperatorCeilingsInput): Promise<Hex> {
    return this.#call("setOperatorCeilings", [
      {
        maxPerTxAmount: usd(ceilings.maxPerTx),
        maxBotDailyLimit: usd(ceilings.maxBotDaily),
        maxOperatorBots: BigInt(ceilings.maxOperatorBots ?? 0),
        vaultDailyAggregate: usd(ceilings.vaultDailyAggregate),
        minAiTriggerFloor: usd(ceilings.minAiTriggerFloor),
      },
    ]);
  }

  /** Names `next` as the next owner (owner only); it owns the vault once it calls acceptOwnership. */
  transferOwnership(next: Address | null): Promise<Hex> {
    return this.#call("transferOwnership", [next ?? zeroAddress]);
  }

  /** Takes over the vault: called with the pending owner's wallet. */
  acceptOwnership(): Promise<Hex> {
    return this.#call("acceptOwnership");
  }

  /** Stops all executions (owner or operator). */
  pause(): Promise<Hex> {
    return this.#call("pause");
  }

  /** Resumes executions (owner only). */
  unpause(): Promise<Hex> {
    return this.#call("unpause");
  }

  // ----------------------------------------------------------------- destinations, protocols, rebalancing

  /** Allows `to` for every bot, or for `options.bot` only (owner only). */
  addDestination(to: Address, options: { bot?: Address } = {}): Promise<Hex> {
    return options.bot === undefined ? this.#call("addGlobalDestination", [to]) : this.#call("addBotDestination", [options.bot, to]);
  }

  /** Removes `to` from the vault's or `options.bot`'s destination list (owner only). */
  removeDestination(to: Address, options: { bot?: Address } = {}): Promise<Hex> {
    return options.bot === undefined ? this.#call("removeGlobalDestination", [to]) : this.#call("removeBotDestination", [options.bot, to]);
  }

  /** Refuses `to` whatever the lists say (owner or operator). */
  blacklist(to: Address): Promise<Hex> {
    return this.#call("addGlobalBlacklist", [to]);
  }

  /** Lifts the blacklisting of `to` (owner only). */
  unblacklist(to: Address): Promise<Hex> {
    return this.#call("removeGlobalBlacklist", [to]);
  }

  /** Approves `protocol` for the bots' protocol calls (owner only). */
  approveProtocol(protocol: Address): Promise<Hex> {
    return this.#call("approveProtocol", [protocol]);
  }

  /** Revokes the vault's approval of `protocol` (owner only). */
  revokeProtocol(protocol: Address): Promise<Hex> {
    return this.#call("revokeProtocol", [protocol]);
  }

  /** Adds `tokens` to the vault's rebalance list (owner only). */
  addRebalanceTokens(tokens: Address[]): Promise<Hex> {
    return this.#call("addRebalanceTokens", [tokens]);
  }

  /** Removes `tokens` from the vault's rebalance list (owner only). */
  removeRebalanceTokens(tokens: Address[]): Promise<Hex> {
    return this.#call("removeRebalanceTokens", [tokens]);
  }

  // ----------------------------------------------------------------- the whole policy

  /** Roles, bots with their policies and destination lists, vault-wide limits and lists, at one block. */
  vaultState(): Promise<VaultState> {
    return readVaultState(this.#publicClient, this.vault);
  }
}

/** `vault`'s roles, bots with their policies and destination lists, vault-wide limits and lists, at one block (no key needed). */
export async function readVaultState(publicClient: PublicClient, vault: Address): Promise<VaultState> {
  const blockNumber = await publicClient.getBlockNumber();
  const r = <T>(functionName: string, args: readonly unknown[] = []) =>
    publicClient.readContract({ address: vault, abi: ownerVaultAbi, functionName, args, blockNumber } as never) as Promise<T>;
  const [owner, pendingOwner, operator, paused, ceilings, botList, vaultLimits, globalDestinations, blacklistCount, rebalanceTokens, slippage, scanners] = await Promise.all([
    r<Address>("owner"),
    r<Address>("pendingOwner"),
    r<Address>("operator"),
    r<boolean>("paused"),
    r<readonly [bigint, bigint, bigint, bigint, bigint]>("operatorCeilings"),
    r<readonly Address[]>("getBots"),
    r<readonly RawLimit[]>("getVaultSpendingLimits"),
    r<readonly Address[]>("getGlobalDestinations"),
    r<bigint>("globalBlacklistCount"),
    r<readonly Address[]>("getRebalanceTokens"),
    r<bigint>("maxSwapSlippageBps"),
    r<readonly Address[]>("scanners"),
  ]);
  const bots = await Promise.all(
    botList.map(async (address) => {
      const [policy, destinations, addedBy] = await Promise.all([r<RawPolicy>("getBotPolicy", [address]), r<readonly Address[]>("getBotDestinations", [address]), r<Address>("botAddedByOperator", [address])]);
      return { address, policy: humanPolicy(policy), destinations: [...destinations], addedByOperator: orNull(addedBy) };
    }),
  );
  const [maxPerTx, maxBotDaily, maxOperatorBots, vaultDailyAggregate, minAiTriggerFloor] = ceilings;
  return {
    vault,
    blockNumber,
    owner,
    pendingOwner: orNull(pendingOwner),
    operator: orNull(operator),
    paused,
    operatorCeilings: { maxPerTx: human(maxPerTx), maxBotDaily: human(maxBotDaily), maxOperatorBots: Number(maxOperatorBots), vaultDailyAggregate: human(vaultDailyAggregate), minAiTriggerFloor: human(minAiTriggerFloor) },
    bots,
    vaultLimits: humanLimits(vaultLimits),
    globalDestinations: [...globalDestinations],
    blacklistCount: Number(blacklistCount),
    rebalanceTokens: [...rebalanceTokens],
    maxSwapSlippageBps: Number(slippage),
    scanners: scanners.filter((s) => s !== zeroAddress),
  };
}
