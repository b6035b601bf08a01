// Transaction signing with native libsecp256k1 (several times faster than the pure-JS signer):
// viem serializes the EIP-1559 transaction, native keccak hashes it, libsecp256k1 signs (RFC 6979, low-s).
import { createRequire } from "node:module";
import { hexToBytes, serializeTransaction, toHex, type Hex, type TransactionSerializableEIP1559 } from "viem";
import { keccak256 } from "./keccak.ts";

interface Secp256k1Api {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}
const secp256k1 = createRequire(import.meta.url)("secp256k1") as Secp256k1Api;

/** A signer bound to one private key: returns the raw signed transaction. */
export function transactionSigner(privateKey: Hex): (tx: TransactionSerializableEIP1559) => Hex {
  const key = hexToBytes(privateKey);
  return (tx) => {
    const digest = keccak256(Buffer.from(serializeTransaction(tx).slice(2), "hex"));
    const { signature, recid } = secp256k1.ecdsaSign(digest, key);
    return serializeTransaction(tx, {
      r: toHex(signature.subarray(0, 32)),
      s: toHex(signature.subarray(32, 64)),
      yParity: recid,
    });
  };
}
