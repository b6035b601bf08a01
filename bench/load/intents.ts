// The load's requests: every one a new payment intent (its own ref), signed by one of the fleet's
// bots with native secp256k1, turned into the exact JSON body of POST /v1/payments with a fresh
// idempotency key. Bodies are made in batches ahead of the send loop, so signing never sets the pace.
import { createRequire } from "node:module";
import type { Address, Hex } from "viem";
import { paymentRequestBody } from "../../packages/client/src/bodies.ts";
import { hashIntentBytes } from "../../src/eip712/hash.ts";
import type { PaymentIntent } from "../../packages/client/src/intent-types.ts";
import type { Fleet } from "./fleet.ts";

interface Secp256k1Sign {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}
const secp256k1 = createRequire(import.meta.url)("secp256k1") as Secp256k1Sign;

/** One signed payment request, ready to send (and to re-send with the same key and body). */
export interface PreparedRequest {
  /** Position in the run (0, 1, 2, ...). */
  index: number;
  vault: Address;
  intent: PaymentIntent;
  /** The EIP-712 digest: the vault's `usedIntents` key and its events' `intentHash`. */
  intentHash: Hex;
  idempotencyKey: string;
  /** The exact JSON text sent, and re-sent by a retry. */
  body: string;
}

/** Deadlines lie this far ahead: beyond any run, its retries and its settling. */
const DEADLINE_AHEAD_SECONDS = 6 * 3600;
/** Payees: a fixed set of plain addresses, reused across intents. */
const PAYEES = 1000;

/** Makes signed requests round-robin over the fleet's bots, `batch` at a time. */
export class RequestFactory {
  readonly #signers: { vault: Fleet["vaults"][number]; bot: Address; key: Uint8Array }[];
  readonly #usdc: Address;
  readonly #runTag: string;
  readonly #ready: PreparedRequest[] = [];
  #made = 0;

  constructor(fleet: Fleet) {
    this.#usdc = fleet.usdc;
    this.#signers = fleet.vaults.flatMap((vault) =>
      vault.bots.map((bot) => ({ vault, bot: bot.address, key: Buffer.from(bot.privateKey.slice(2), "hex") })),
    );
    // Refs of different runs never collide, even against a chain reused between runs.
    this.#runTag = Date.now().toString(16).padStart(16, "0");
  }

  /** The next request, signing another batch when none is left. */
  next(): PreparedRequest {
    if (this.#ready.length === 0) this.prepare(256);
    return this.#ready.shift()!;
  }

  /** Requests signed and waiting. */
  get ready(): number {
    return this.#ready.length;
  }

  /** Signs `count` more requests ahead. */
  prepare(count: number): void {
    const deadline = BigInt(Math.floor(Date.now() / 1000) + DEADLINE_AHEAD_SECONDS);
    for (let i = 0; i < count; i++) this.#ready.push(this.#make(deadline));
  }

  #make(deadline: bigint): PreparedRequest {
    const index = this.#made++;
    const signer = this.#signers[index % this.#signers.length]!;
    const intent: PaymentIntent = {
      bot: signer.bot,
      to: `0x${(0x10000 + (index % PAYEES)).toString(16).padStart(40, "0")}`,
      token: this.#usdc,
      amount: 10_000n + BigInt(index % 100), // one to two cents
      deadline,
      ref: `0x${this.#runTag}${index.toString(16).padStart(48, "0")}`,
    };
    const digest = hashIntentBytes("payment", signer.vault.domain, intent);
    const { signature, recid } = secp256k1.ecdsaSign(digest, signer.key);
    const hexSignature: Hex = `0x${Buffer.from(signature).toString("hex")}${(27 + recid).toString(16)}`;
    const idempotencyKey = crypto.randomUUID();
    const body = paymentRequestBody(signer.vault.domain, intent, hexSignature, { idempotencyKey });
    return {
      index,
      vault: signer.vault.address,
      intent,
      intentHash: `0x${digest.toString("hex")}`,
      idempotencyKey,
      body: JSON.stringify(body),
    };
  }
}
