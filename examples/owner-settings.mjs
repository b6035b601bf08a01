// What the owner's setup scripts share: their flags, their settings from the environment
// (RELAY_URL, RELAY_RPC_URL, RELAY_CHAIN_ID, RELAY_OWNER_KEY) and the viem clients on that chain.
import { createPublicClient, createWalletClient, defineChain, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const argv = process.argv.slice(2);

/** The word after `--name` on the command line, or `fallback`. @param {string} name @param {string} [fallback] */
export function flag(name, fallback) {
  const value = argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

/** @param {string} name */
function env(name) {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

/** The relayer's URL, the chain, and the owner's account with its public and wallet clients. */
export function ownerSettings() {
  const chainId = Number(env("RELAY_CHAIN_ID"));
  const rpcUrl = env("RELAY_RPC_URL");
  const chain = defineChain({ id: chainId, name: `chain ${chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  const owner = privateKeyToAccount(/** @type {`0x${string}`} */ (env("RELAY_OWNER_KEY")));
  return {
    relayerUrl: env("RELAY_URL"),
    chainId,
    owner,
    publicClient: createPublicClient({ chain, transport: http(rpcUrl) }),
    wallet: createWalletClient({ account: owner, chain, transport: http(rpcUrl) }),
  };
}
