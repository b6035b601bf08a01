// A bot that pays from its vault through a relayer: sign a payment, send it, print the answer.
//   node bot.mjs --to 0x… --amount 5 --token 0x… [--memo "…"] [--scenario review-approve:1] [--wait]
// Settings come from the environment: RELAY_URL, RELAY_RPC_URL, RELAY_CHAIN_ID, RELAY_VAULT, RELAY_BOT_KEY.
// It prints `status <status> request <id>` (again after waiting, with --wait), or on a refusal
// `error <CODE> retryable=<true|false>` and exits with 1.
import { createPublicClient, erc20Abi, getAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RelayApiError, RelayClient, defaultDeadline, parseUnits, randomRef, readVaultDomain, signPaymentRequest } from "relay-client";

const argv = process.argv.slice(2);
/** The word after `--name` on the command line, if the flag is there. @param {string} name */
const flag = (name) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
/** @param {string | undefined} value @param {string} name */
function need(value, name) {
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}
const env = (/** @type {string} */ name) => need(process.env[name], name);

const bot = privateKeyToAccount(/** @type {`0x${string}`} */ (env("RELAY_BOT_KEY")));
const chain = createPublicClient({ transport: http(env("RELAY_RPC_URL")) });
const relay = new RelayClient({ baseUrl: env("RELAY_URL"), chainId: Number(env("RELAY_CHAIN_ID")) });
const token = getAddress(need(flag("token"), "--token"));
const [memo, scenario] = [flag("memo"), flag("scenario")];

try {
  const domain = await readVaultDomain(chain, getAddress(env("RELAY_VAULT"))); // the vault's EIP-712 domain
  const decimals = await chain.readContract({ address: token, abi: erc20Abi, functionName: "decimals" });
  const amount = parseUnits(need(flag("amount"), "--amount"), decimals); // "5" → 5000000n for a 6-decimal token
  const intent = { bot: bot.address, to: getAddress(need(flag("to"), "--to")), token, amount, deadline: defaultDeadline(), ref: randomRef() };
  const body = await signPaymentRequest(bot, domain, intent, { memo, metadata: scenario === undefined ? undefined : { scenario } });
  let answer = await relay.submitPayment(body); // resent safely (same idempotency key) on 429 and 5xx
  console.log(`status ${answer.status} request ${answer.requestId}`);
  if (argv.includes("--wait") && answer.status === "pending_review") {
    answer = await relay.resolve("payment", answer, { signal: AbortSignal.timeout(15 * 60_000) }); // polls at SPEC.md's cadence
    console.log(`status ${answer.status} request ${answer.requestId}`);
  }
} catch (error) {
  if (!(error instanceof RelayApiError)) throw error;
  console.error(`error ${error.code} retryable=${error.retryable}`); // e.g. error EXCEEDS_PER_TX_LIMIT retryable=false
  process.exitCode = 1;
}
