// An owner's setup from code, on relay-client: deploy a vault (at the address predicted first), fund
// it, add two bots, and pay from one of them through the relayer.
//   node owner-setup.mjs --token 0x… [--fund 100] [--pay 5 --to 0x…]
// Settings come from the environment: RELAY_URL, RELAY_RPC_URL, RELAY_CHAIN_ID, RELAY_OWNER_KEY (the
// owner's wallet pays the gas and the deposit). It prints `vault <address>`, `bot <address> <role>`
// twice and `payment <status> <txHash>`; the bots' keys stay in memory.
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RelayClient, VaultOwner, defaultDeadline, deployVault, parseUnits, predictVaultAddress, randomRef, readVaultDomain, signPaymentRequest } from "relay-client";
import { flag, ownerSettings } from "./owner-settings.mjs";

const { relayerUrl: baseUrl, chainId, owner: ownerAccount, publicClient, wallet } = ownerSettings();
const token = getAddress(flag("token"));

// 1. Deploy: the factory the relayer serves for this chain; the address is known before the vault exists.
const relay = new RelayClient({ baseUrl, chainId });
const served = (await relay.chains()).chains.find((c) => c.chainId === chainId);
if (served === undefined) throw new Error(`the relayer at ${baseUrl} serves no chain ${chainId}`);
const factory = getAddress(served.factoryAddress);
const predicted = await predictVaultAddress(publicClient, factory, ownerAccount.address);
const vault = await deployVault({ wallet, publicClient, factory });
if (vault !== predicted) throw new Error(`deployed at ${vault}, predicted ${predicted}`);
console.log(`vault ${vault}`);

// 2. Fund it from the owner's wallet, with a reference the Deposited event keeps.
const owner = new VaultOwner({ wallet, publicClient, vault });
await owner.deposit(token, flag("fund", "100"), { ref: "initial funding" });

// 3. Two bots: a payer with caps and a daily limit, and one whose every request waits for the owner.
const payerKey = generatePrivateKey();
const payer = privateKeyToAccount(payerKey);
const reviewed = privateKeyToAccount(generatePrivateKey());
await owner.addBot(payer.address, { maxPerTx: "25", spendingLimits: [{ amount: "100", windowSeconds: 86_400 }] });
await owner.addBot(reviewed.address, { maxPerTx: "500", requireHumanReview: true });
console.log(`bot ${payer.address} payer`);
console.log(`bot ${reviewed.address} reviewed`);

// 4. The payer pays through the relayer; resolve() waits for the final answer.
const decimals = Number(flag("decimals", "6"));
const intent = {
  bot: payer.address,
  to: getAddress(flag("to", ownerAccount.address)),
  token,
  amount: parseUnits(flag("pay", "5"), decimals),
  deadline: defaultDeadline(),
  ref: randomRef(),
};
const body = await signPaymentRequest(payer, await readVaultDomain(publicClient, vault), intent, { memo: "first payment" });
const final = await relay.resolve("payment", await relay.submitPayment(body));
console.log(`payment ${final.status} ${"txHash" in final ? final.txHash : ""}`);
