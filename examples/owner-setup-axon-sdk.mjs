// The same setup as owner-setup.mjs, written against the production SDK (@axonfi/sdk) and run
// unchanged on relay: deploy a vault at its predicted address, fund it, add two bots, pay from one.
//   node owner-setup-axon-sdk.mjs --token 0x… [--fund 100] [--pay 5 --to 0x…]
// Settings: RELAY_URL, RELAY_RPC_URL, RELAY_CHAIN_ID, RELAY_OWNER_KEY. It prints `vault <address>`,
// `bot <address> <role>` twice and `payment <status> <txHash>`; the bots' keys stay in memory.
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { AxonClient, AxonVaultFactoryAbi, WINDOW, addBot, deployVault, deposit, encodeRef, predictVaultAddress } from "@axonfi/sdk";
import { flag, ownerSettings } from "./owner-settings.mjs";

const { relayerUrl, chainId, owner, publicClient, wallet } = ownerSettings();
const token = getAddress(flag("token"));

// 1. Deploy at the address predicted from the owner and its next nonce (the factory comes from the relayer's /v1/chains).
const chains = /** @type {{ chains: { chainId: number; factoryAddress: `0x${string}` }[] }} */ (await (await fetch(`${relayerUrl}/v1/chains`)).json());
const factory = chains.chains.find((c) => c.chainId === chainId)?.factoryAddress;
if (factory === undefined) throw new Error(`the relayer serves no chain ${chainId}`);
const nonce = await publicClient.readContract({ address: factory, abi: AxonVaultFactoryAbi, functionName: "ownerVaultCount", args: [owner.address] });
const predicted = await predictVaultAddress(publicClient, owner.address, Number(nonce), relayerUrl);
const vault = await deployVault(wallet, publicClient, relayerUrl);
if (getAddress(vault) !== getAddress(predicted)) throw new Error(`deployed at ${vault}, predicted ${predicted}`);
console.log(`vault ${getAddress(vault)}`);

// 2. Fund it (base units: the SDK resolves symbols only on the networks it knows).
const decimals = Number(flag("decimals", "6"));
const units = (/** @type {string} */ human) => BigInt(Math.round(Number(human) * 10 ** decimals));
await deposit(wallet, publicClient, vault, token, units(flag("fund", "100")), encodeRef("initial funding"));

// 3. Two bots, limits in USD.
const payerKey = generatePrivateKey();
const payer = privateKeyToAccount(payerKey);
const second = privateKeyToAccount(generatePrivateKey());
await addBot(wallet, publicClient, vault, payer.address, { maxPerTxAmount: 25, maxRebalanceAmount: 0, spendingLimits: [{ amount: 100, maxCount: 0, windowSeconds: Number(WINDOW.ONE_DAY) }], aiTriggerThreshold: 0, requireAiVerification: false });
await addBot(wallet, publicClient, vault, second.address, { maxPerTxAmount: 10, maxRebalanceAmount: 0, spendingLimits: [], aiTriggerThreshold: 5, requireAiVerification: false });
console.log(`bot ${payer.address} payer`);
console.log(`bot ${second.address} capped`);

// 4. The payer pays through the relayer with the SDK's bot client, polled to the end.
const client = new AxonClient({ vaultAddress: vault, chainId, relayerUrl, botPrivateKey: payerKey });
let result = await client.pay({ to: getAddress(flag("to", owner.address)), token, amount: units(flag("pay", "5")), memo: "first payment" });
for (let i = 0; i < 600 && !["approved", "rejected", "failed"].includes(result.status); i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  result = { ...result, ...(await client.poll(result.requestId)) };
}
console.log(`payment ${result.status} ${result.txHash ?? ""}`);
