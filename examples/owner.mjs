// A vault owner's script: sign in with Ethereum (SIWE), then list the requests held for review, or
// approve or reject one of them.
//   node owner.mjs list                          one line per held request: `<id> <kind> <bot> <why held>`
//   node owner.mjs approve <requestId>           signs the on-chain ReviewApproval; prints `status <status>`
//   node owner.mjs reject <requestId> [reason]   prints `status <status>`
// Settings come from the environment: RELAY_URL, RELAY_RPC_URL, RELAY_CHAIN_ID, RELAY_OWNER_KEY.
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RelayApiError, RelayClient, readVaultDomain, signInWithEthereum, signReviewApproval } from "relay-client";

/** @param {string} name */
function env(name) {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}
const [command = "list", requestId = "", reason = "rejected by the owner"] = process.argv.slice(2);
const owner = privateKeyToAccount(/** @type {`0x${string}`} */ (env("RELAY_OWNER_KEY")));
const baseUrl = env("RELAY_URL");
const relay = new RelayClient({ baseUrl });

try {
  await signInWithEthereum(relay, owner, { chainId: Number(env("RELAY_CHAIN_ID")), baseUrl }); // the session token stays in `relay`
  if (command === "list") {
    for (const item of (await relay.reviews()).reviews) console.log(`${item.requestId} ${item.kind} ${item.bot} ${item.heldBecause}`);
  } else if (command === "approve") {
    const item = await relay.review(requestId);
    const chain = createPublicClient({ transport: http(env("RELAY_RPC_URL")) });
    const domain = await readVaultDomain(chain, item.vault);
    const deadline = (await chain.getBlock()).timestamp + 600n; // the approval is valid on-chain for 10 minutes of chain time
    const signature = await signReviewApproval(owner, domain, { intentHash: item.intentHash, deadline });
    console.log(`status ${(await relay.approveReview(requestId, { deadline, signature })).status}`);
  } else if (command === "reject") {
    console.log(`status ${(await relay.rejectReview(requestId, reason)).status}`);
  } else {
    throw new Error(`unknown command "${command}": list, approve <requestId> or reject <requestId> [reason]`);
  }
} catch (error) {
  if (!(error instanceof RelayApiError)) throw error;
  console.error(`error ${error.code} retryable=${error.retryable}`);
  process.exitCode = 1;
}
