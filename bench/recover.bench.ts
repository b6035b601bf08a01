// Signature-check throughput: the relayer's native path (hashIntent + recoverSigner) against viem's
// recoverTypedDataAddress on the same signed payment intents. Run: node bench/recover.bench.ts
// (or `bash scripts/run.sh node bench/recover.bench.ts` to use the provisioned Node).
import { getAddress, recoverTypedDataAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { checksumAddressFromBytes } from "../src/crypto/address.ts";
import { keccakBackend } from "../src/crypto/keccak.ts";
import { hashIntent } from "../src/eip712/hash.ts";
import { recoverSigner, secp256k1Backend } from "../src/eip712/recover.ts";
import { intentTypes, type PaymentIntent, type VaultDomain } from "../packages/client/src/intent-types.ts";
import { targetLine } from "./support/target.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SAMPLES = 64;

const domain: VaultDomain = {
  name: "ServiceVault",
  version: "1",
  chainId: 84532,
  verifyingContract: "0x1111111111111111111111111111111111111111",
};

// Distinct signers and intents, so no cache (viem keeps an address cache) flatters either side.
const samples: { intent: PaymentIntent; signature: Hex; signer: string }[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const account = privateKeyToAccount(`0x${(BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(64, "0")}`);
  const intent: PaymentIntent = {
    bot: account.address,
    to: `0x${(i + 0x1000).toString(16).padStart(40, "0")}`,
    token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    amount: BigInt(i) * 1_000_000n + 1n,
    deadline: 1_900_000_000n + BigInt(i),
    ref: `0x${(i + 1).toString(16).padStart(64, "0")}`,
  };
  const signature = await account.signTypedData({
    domain,
    types: { PaymentIntent: intentTypes.PaymentIntent },
    primaryType: "PaymentIntent",
    message: intent,
  });
  samples.push({ intent, signature, signer: account.address });
}

async function measure(label: string, op: (i: number) => unknown): Promise<number> {
  // Warm up, then count operations for SECONDS.
  for (let i = 0; i < 200; i++) await op(i % SAMPLES);
  let count = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) {
    for (let j = 0; j < 50; j++) await op(count++ % SAMPLES);
  }
  const perSecond = (count / (performance.now() - start)) * 1000;
  console.log(`${label.padEnd(48)} ${Math.round(perSecond).toLocaleString("en-US").padStart(10)} /s`);
  return perSecond;
}

console.log(`backends: keccak ${keccakBackend}, secp256k1 ${secp256k1Backend}; ${SECONDS}s per case\n`);

const native = await measure("native hashIntent + recoverSigner", (i) => {
  const s = samples[i]!;
  if (recoverSigner(hashIntent("payment", domain, s.intent), s.signature) !== s.signer) throw new Error("mismatch");
});
const viem = await measure("viem recoverTypedDataAddress", async (i) => {
  const s = samples[i]!;
  const signer = await recoverTypedDataAddress({
    domain,
    types: { PaymentIntent: intentTypes.PaymentIntent },
    primaryType: "PaymentIntent",
    message: s.intent,
    signature: s.signature,
  });
  if (signer !== s.signer) throw new Error("mismatch");
});
console.log(targetLine("ratio native/viem", native / viem, { op: ">=", value: 20 }, "×", 1) + "\n");

await measure("native hashIntent alone", (i) => hashIntent("payment", domain, samples[i]!.intent));
const digests = samples.map((s) => hashIntent("payment", domain, s.intent));
await measure("native recoverSigner alone", (i) => recoverSigner(digests[i]!, samples[i]!.signature));

// EIP-55 checksum: ours vs viem's getAddress (which caches; fresh addresses defeat the cache).
const raw = Buffer.alloc(20);
let n = 0;
await measure("EIP-55 checksum, native keccak", () => {
  raw.writeUInt32BE(n++ >>> 0, 16);
  return checksumAddressFromBytes(raw);
});
await measure("EIP-55 checksum, viem getAddress (uncached)", () => {
  raw.writeUInt32BE(n++ >>> 0, 16);
  return getAddress(`0x${raw.toString("hex")}`);
});
