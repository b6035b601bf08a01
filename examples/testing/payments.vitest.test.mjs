// A bot's own tests under vitest, each from a fresh devnet and relayer state: useRelay() starts one
// relay for this file and reverts it (chain, ledger, relayer) to its state after the start before
// every test. The second test proves it: the first test's payment is gone from the chain and unknown
// to the relayer, and the same payment goes through again.
//   npx vitest run payments.vitest.test.mjs
import { createPublicClient, erc20Abi, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { RelayApiError, RelayClient, defaultDeadline, randomRef, readVaultDomain, signPaymentRequest } from "relay-client";
import { useRelay } from "relay/testing/vitest";
import { expect, test } from "vitest";

const relay = useRelay();
const RECIPIENT = "0x000000000000000000000000000000000000bEEF"; // the same in every test
let firstRequestId;

/** Pays 5 USDC to RECIPIENT from the devnet's vault as its default bot; resolves with the relayer's answer. */
async function pay() {
  const { manifest } = relay;
  const chain = createPublicClient({ transport: http(relay.rpcUrl) });
  const client = new RelayClient({ baseUrl: relay.relayerUrl, chainId: manifest.chainId });
  const bot = privateKeyToAccount(manifest.accounts.bots.default.privateKey);
  const domain = await readVaultDomain(chain, manifest.contracts.vault);
  const intent = { bot: bot.address, to: RECIPIENT, token: manifest.tokens.USDC.address, amount: 5_000_000n, deadline: defaultDeadline(), ref: randomRef() };
  return client.submitPayment(await signPaymentRequest(bot, domain, intent));
}

async function recipientUsdc() {
  const chain = createPublicClient({ transport: http(relay.rpcUrl) });
  return chain.readContract({ address: relay.manifest.tokens.USDC.address, abi: erc20Abi, functionName: "balanceOf", args: [RECIPIENT] });
}

test("a payment reaches the recipient", async () => {
  const answer = await pay();
  expect(answer.status).toBe("approved");
  expect(await recipientUsdc()).toBe(5_000_000n);
  firstRequestId = answer.requestId;
});

test("the next test starts without it: nothing on-chain, unknown to the relayer, and it can be paid again", async () => {
  expect(firstRequestId).toBeDefined();
  expect(await recipientUsdc()).toBe(0n);
  const client = new RelayClient({ baseUrl: relay.relayerUrl, chainId: relay.manifest.chainId });
  const lookup = await client.getPayment(firstRequestId).catch((error) => error);
  expect(lookup).toBeInstanceOf(RelayApiError);
  expect(lookup.code).toBe("NOT_FOUND");

  const again = await pay();
  expect(again.status).toBe("approved");
  expect(await recipientUsdc()).toBe(5_000_000n);
});
