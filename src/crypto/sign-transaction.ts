// Transaction signing with native libsecp256k1 (several times faster than the pure-JS signer).
// The relayer's transactions are plain EIP-1559 calls, serialized here straight into bytes (RLP,
// below): viem's serializer turns every field into hex, then bytes, then hex again, which for a
// batch's ~10 KB of calldata, done twice per transaction (the unsigned payload to hash, then the
// signed one), cost more than the signing. Native keccak hashes the payload; libsecp256k1 signs it
// (RFC 6979, low-s). viem checks each transaction first (assertTransactionEIP1559, the same errors),
// and serializes any transaction outside the plain shape (an access list, other fields), so the
// bytes are always viem's (see the tests).
import { createRequire } from "node:module";
import { assertTransactionEIP1559, hexToBytes, serializeTransaction, toHex, type Hex, type TransactionSerializableEIP1559 } from "viem";
import { keccak256 } from "./keccak.ts";
import { hexBytes } from "./hex.ts";

interface Secp256k1Api {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}
const secp256k1 = createRequire(import.meta.url)("secp256k1") as Secp256k1Api;

/** A signer bound to one private key: returns the raw signed transaction. */
export function transactionSigner(privateKey: Hex): (tx: TransactionSerializableEIP1559) => Hex {
  const key = hexToBytes(privateKey);
  return (tx) => {
    const fields = plainFields(tx);
    if (fields === undefined) return signWithViem(tx, key);
    const digest = keccak256(typedEnvelope(fields));
    const { signature, recid } = secp256k1.ecdsaSign(digest, key);
    const signed = typedEnvelope([...fields, rlpUint(BigInt(recid)), rlpUint(wordValue(signature, 0)), rlpUint(wordValue(signature, 32))]);
    return `0x${signed.toString("hex")}`;
  };
}

function signWithViem(tx: TransactionSerializableEIP1559, key: Uint8Array): Hex {
  const digest = keccak256(Buffer.from(serializeTransaction(tx).slice(2), "hex"));
  const { signature, recid } = secp256k1.ecdsaSign(digest, key);
  return serializeTransaction(tx, { r: toHex(signature.subarray(0, 32)), s: toHex(signature.subarray(32, 64)), yParity: recid });
}

/** The fields the fast path serializes; a transaction with any other (defined) field goes to viem. */
const PLAIN_KEYS = new Set(["type", "chainId", "nonce", "to", "data", "gas", "value", "maxFeePerGas", "maxPriorityFeePerGas", "accessList"]);

/**
 * The RLP items of an unsigned EIP-1559 transaction, in order (chainId, nonce, maxPriorityFeePerGas,
 * maxFeePerGas, gas, to, value, data, accessList), or undefined when it is not of the plain shape.
 * Throws viem's errors for a transaction viem would refuse.
 */
function plainFields(tx: TransactionSerializableEIP1559): Buffer[] | undefined {
  if (tx.type !== "eip1559") return undefined;
  for (const key in tx) if (!PLAIN_KEYS.has(key) && (tx as Record<string, unknown>)[key] !== undefined) return undefined;
  if (tx.accessList !== undefined && tx.accessList.length > 0) return undefined;
  assertTransactionEIP1559(tx);
  const { chainId, nonce, to, data, gas, value, maxFeePerGas, maxPriorityFeePerGas } = tx;
  const toBytes = to === undefined ? Buffer.alloc(0) : hexBytes(to);
  const dataBytes = hexBytes(data ?? "0x");
  if (toBytes?.length !== (to === undefined ? 0 : 20) || dataBytes === undefined) return undefined;
  const ints = [chainId, nonce ?? 0, maxPriorityFeePerGas ?? 0n, maxFeePerGas ?? 0n, gas ?? 0n];
  const items: Buffer[] = [];
  for (const n of ints) {
    const item = uintItem(n);
    if (item === undefined) return undefined;
    items.push(item);
  }
  const valueItem = uintItem(value ?? 0n);
  if (valueItem === undefined) return undefined;
  items.push(rlpString(toBytes));
  items.push(valueItem);
  items.push(rlpString(dataBytes));
  items.push(EMPTY_LIST);
  return items;
}

const MAX_UINT = (1n << 256n) - 1n;

/** A non-negative integer's item; undefined for anything viem's numberToHex would refuse or read otherwise. */
function uintItem(n: number | bigint): Buffer | undefined {
  if (typeof n === "number") {
    if (!Number.isSafeInteger(n) || n < 0) return undefined;
    return rlpUint(BigInt(n));
  }
  if (typeof n !== "bigint" || n < 0n || n > MAX_UINT) return undefined;
  return rlpUint(n);
}

// ---- RLP ----------------------------------------------------------------------------------------

const EMPTY_STRING = Buffer.from([0x80]);
const EMPTY_LIST = Buffer.from([0xc0]);

/** The 32-byte big-endian word at `bytes[at..]` as an integer. */
function wordValue(bytes: Uint8Array, at: number): bigint {
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset + at, 32).toString("hex")}`);
}

/** An integer as RLP: its minimal big-endian bytes (none for 0) as a string item. */
function rlpUint(n: bigint): Buffer {
  if (n === 0n) return EMPTY_STRING;
  if (n < 0x80n) return Buffer.from([Number(n)]);
  const hex = n.toString(16);
  return rlpString(Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex"));
}

/** A byte string as RLP: a single byte below 0x80 is itself; else a length prefix, then the bytes. */
function rlpString(bytes: Buffer): Buffer {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return Buffer.concat([lengthPrefix(0x80, bytes.length), bytes]);
}

/** The prefix of a string (`base` 0x80) or list (0xc0) item whose payload is `length` bytes. */
function lengthPrefix(base: number, length: number): Buffer {
  if (length < 56) return Buffer.from([base + length]);
  let hex = length.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Buffer.concat([Buffer.from([base + 55 + hex.length / 2]), Buffer.from(hex, "hex")]);
}

/** 0x02 ‖ rlp(items): an EIP-1559 transaction's typed envelope. */
function typedEnvelope(items: readonly Buffer[]): Buffer {
  let length = 0;
  for (const item of items) length += item.length;
  return Buffer.concat([TYPE_EIP1559, lengthPrefix(0xc0, length), ...items]);
}

const TYPE_EIP1559 = Buffer.from([0x02]);
