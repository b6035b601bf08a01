// Seeds a vault for the owner: operator, the `default` bot with permissive limits, the `reviewed`
// bot whose every request needs the owner's review, the AI panel's scanner keys (on a devnet), and
// funds in every mock token plus some ETH.
import { decodeEventLog, parseEther, type Address } from "viem";
import type { Clients } from "../chain/clients.ts";
import { readArtifact } from "../chain/artifacts.ts";
import type { BotConfigParams } from "../chain/vault-config.ts";
import type { KeyPair } from "./accounts.ts";
import { signingSenders, type SenderFor, type Suite } from "./deploy.ts";
import { TOKENS } from "./tokens.ts";

const usd = (dollars: number): bigint => BigInt(dollars) * 1_000_000n;
const DAY = 86_400n;

/** Generous limits for trying things out: $50k per payment, $250k a day, AI scan from $10k. */
export const PERMISSIVE_LIMITS: BotConfigParams = {
  maxPerTxAmount: usd(50_000),
  maxRebalanceAmount: usd(100_000),
  spendingLimits: [{ amount: usd(250_000), maxCount: 0n, windowSeconds: DAY }],
  aiTriggerThreshold: usd(10_000),
  requireAiVerification: false,
  requireHumanReview: false,
};

export interface SeedOptions {
  clients: Clients;
  suite: Suite;
  deployer: KeyPair;
  owner: KeyPair;
  operator: Address;
  bots: { default: Address; reviewed: Address };
  /** The AI panel's keys the vault registers as its scanners (setScanners), if any. */
  scanners?: readonly Address[];
  /** How the owner's and deployer's transactions are sent (default: signed here, createSender). */
  senderFor?: SenderFor;
}

export async function seedVault(options: SeedOptions): Promise<Address> {
  const { clients, suite } = options;
  const senderFor = options.senderFor ?? signingSenders(clients);
  const owner = senderFor(options.owner);
  const deployer = senderFor(options.deployer);

  const receipt = await owner.call(suite.factory, "ServiceVaultFactory", "deployVault");
  const vault = vaultFromReceipt(receipt.logs);

  await owner.call(vault, "ServiceVault", "setOperator", [options.operator]);
  await owner.call(vault, "ServiceVault", "addBotWithPolicy", [options.bots.default, PERMISSIVE_LIMITS]);
  await owner.call(vault, "ServiceVault", "addBotWithPolicy", [options.bots.reviewed, { ...PERMISSIVE_LIMITS, requireHumanReview: true }]);
  if (options.scanners) await owner.call(vault, "ServiceVault", "setScanners", [options.scanners]);

  for (const token of TOKENS) {
    const amount = token.vaultFunding * 10n ** BigInt(token.decimals);
    await deployer.call(suite.tokens[token.symbol].address, "mocks/MockERC20", "mint", [vault, amount]);
    await deployer.call(suite.tokens[token.symbol].address, "mocks/MockERC20", "mint", [options.owner.address, amount]);
  }
  await deployer.sendValue(vault, parseEther("10"));
  return vault;
}

function vaultFromReceipt(logs: readonly { data: `0x${string}`; topics: readonly `0x${string}`[] }[]): Address {
  const { abi } = readArtifact("ServiceVaultFactory");
  for (const log of logs) {
    try {
      const event = decodeEventLog({ abi, data: log.data, topics: log.topics as [`0x${string}`, ...`0x${string}`[]] });
      if (event.eventName === "VaultDeployed") return (event.args as unknown as { vault: Address }).vault;
    } catch {
      // another contract's event
    }
  }
  throw new Error("deployVault emitted no VaultDeployed event");
}
