// The EIP-191 "personal_sign" digest of a SIWE message: what a wallet's signMessage signs, and what
// the relayer recovers the signer from.
import { keccak256 } from "../crypto/keccak.ts";

/** keccak256("\x19Ethereum Signed Message:\n" + byte length + message), the message as UTF-8. */
export function personalMessageDigest(message: string): Buffer {
  const body = Buffer.from(message, "utf8");
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, "latin1");
  return keccak256(Buffer.concat([prefix, body]));
}
