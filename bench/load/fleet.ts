// The load run's vaults and bots on a fresh devnet: the seeded vault plus new ones created through
// the factory for the owner, each with its own bots (fresh keys, limits far above what a run
// spends) and enough USDC minted in for every payment of the run.
import { decodeEventLog, parseUnits, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { Clients } from "../../src/chain/clients.ts";
import { createSender } from "../../src/chain/sender.ts";
import type { BotConfigParams } from "../../src/chain/vault-config.ts";
import { readVaultDomain } from "../../packages/client/src/sign.ts";
import { keccak256Hex } from "../../src/crypto/keccak.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import type { VaultDomain } from "../../packages/client/src/intent-types.ts";

export interface LoadBot {
  address: Address;
  privateKey: Hex;
}

export interface LoadVault {
  address: Address;
  domain: VaultDomain;
  bots: LoadBot[];
}

export interface Fleet {
  vaults: LoadVault[];
  usdc: Address;
}

/** Limits no run comes near: $1M per payment and per day, no count limit, no AI scan, no review. */
const LOAD_LIMITS: BotConfigParams = {
  maxPerTxAmount: parseUnits("1000000", 6),
  maxRebalanceAmount: 0n,
  spendingLimits: [{ amount: parseUnits("1000000", 6), maxCount: 0n, windowSeconds: 86_400n }],
  aiTriggerThreshold: parseUnits("1000000", 6),
  requireAiVerification: false,
  requireHumanReview: false,
};

/** USDC minted into each vault: far more than a run's payments of a few cents each. */
const VAULT_FUNDING = parseUnits("1000000", 6);

/** `vaults` vaults (the seeded one first) sharing `bots` bots evenly, each funded in USDC. */
export async function createFleet(clients: Clients, manifest: Manifest, vaults: number, bots: number): Promise<Fleet> {
  const { owner, deployer } = manifest.accounts;
  if (!deployer) throw new Error("the devnet manifest has no deployer account (needed to mint USDC)");
  const asOwner = createSender(clients, owner.privateKey as Hex);
  const asDeployer = createSender(clients, deployer.privateKey as Hex);
  const usdc = manifest.tokens.USDC!.address as Address;

  const addresses: Address[] = [manifest.contracts.vault as Address];
  while (addresses.length < vaults) {
    const receipt = await asOwner.call(manifest.contracts.factory as Address, "ServiceVaultFactory", "deployVault");
    addresses.push(vaultFromLogs(receipt.logs));
  }

  const fleet: LoadVault[] = [];
  for (const [v, address] of addresses.entries()) {
    const count = Math.floor(bots / vaults) + (v < bots % vaults ? 1 : 0);
    const vaultBots = Array.from({ length: count }, (_, b) => loadBot(v, b));
    for (const bot of vaultBots) await asOwner.call(address, "ServiceVault", "addBotWithPolicy", [bot.address, LOAD_LIMITS]);
    await asDeployer.call(usdc, "mocks/MockERC20", "mint", [address, VAULT_FUNDING]);
    fleet.push({ address, domain: await readVaultDomain(clients.publicClient, address), bots: vaultBots });
  }
  return { vaults: fleet, usdc };
}

/** A bot key derived from its place in the fleet, so that runs are repeatable. */
function loadBot(vault: number, bot: number): LoadBot {
  const privateKey = keccak256Hex(`0x${Buffer.from(`relay load bot ${vault}/${bot}`).toString("hex")}`);
  return { address: privateKeyToAccount(privateKey).address, privateKey };
}

function vaultFromLogs(logs: readonly { data: Hex; topics: readonly Hex[] }[]): Address {
  const { abi } = readArtifact("ServiceVaultFactory");
  for (const log of logs) {
    try {
      const event = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
      if (event.eventName === "VaultDeployed") return (event.args as unknown as { vault: Address }).vault;
    } catch {
      // another contract's event
    }
  }
  throw new Error("deployVault emitted no VaultDeployed event");
}
