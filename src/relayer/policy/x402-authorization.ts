// An x402 request's authorization, as the token will see it (before the policy rules spend a read
// on it): its validity window still open by the chain's clock (400 X402_AUTHORIZATION_EXPIRED), its
// EIP-3009 nonce unused by the vault on the token and the authorization not recorded already (409
// X402_NONCE_USED), and its digest, computed
// from the token's DOMAIN_SEPARATOR() at the pinned block as the vault computes it on-chain: the
// value recorded and answered (`digest`). A token without EIP-3009, or one the registry prices not
// (the vault refuses it: NoPriceFeed), is 400 INVALID_X402_REQUIREMENT.
import { encodeAbiParameters, keccak256, concat, type Hex } from "viem";
import type { X402Request } from "../../api/validate.ts";
import { readArtifact } from "../../chain/artifacts.ts";
import { relayError } from "../../errors.ts";
import type { ChainRuntime } from "../chain/chain-runtime.ts";
import type { PolicySnapshot } from "../chain/snapshot.ts";
import { rpcFailure } from "../rpc-errors.ts";

const eip3009Abi = readArtifact("mocks/MockUSDC").abi;
const vaultAbi = readArtifact("ServiceVault").abi;

/** keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"). */
export const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = "0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267" as const;

/** The EIP-3009 digest of `request`'s authorization (from = the vault) under the token's domain separator. */
export function x402Digest(request: X402Request, domainSeparator: Hex): Hex {
  const i = request.intent;
  const structHash = keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "address" }, { type: "address" }, { type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes32" }],
      [TRANSFER_WITH_AUTHORIZATION_TYPEHASH, request.vaultAddress, i.payTo, i.amount, i.validAfter, i.validBefore, i.nonce],
    ),
  );
  return keccak256(concat(["0x1901", domainSeparator, structHash]));
}

/** Checks an x402 request's authorization and sets its `digest`. */
export async function checkX402Authorization(chain: ChainRuntime, request: X402Request, snapshot: PolicySnapshot, nowSeconds: bigint): Promise<void> {
  const blockNumber = snapshot.blockNumber;
  // A stale feed is PRICE_FEED_STALE (policy/prices.ts, earlier); a token without a feed is none an x402 may pay in.
  if (!snapshot.priced) throw relayError("INVALID_X402_REQUIREMENT", `token ${request.intent.token} has no price feed in the registry: the vault authorizes only tokens it can value`);
  const { token, validBefore, nonce } = request.intent;
  if (validBefore <= nowSeconds) {
    throw relayError("X402_AUTHORIZATION_EXPIRED", `validBefore ${validBefore} is not after the chain's time ${nowSeconds}`);
  }
  const read = (functionName: string, args: unknown[] = []) =>
    rpcFailure(() => chain.clients.publicClient.readContract({ address: token, abi: eip3009Abi, functionName, args, blockNumber } as never)) as Promise<unknown>;
  let domainSeparator: Hex;
  let used: boolean;
  try {
    [domainSeparator, used] = (await Promise.all([read("DOMAIN_SEPARATOR"), read("authorizationState", [request.vaultAddress, nonce])])) as [Hex, boolean];
  } catch (error) {
    if ((error as { code?: unknown }).code === "RPC_ERROR") throw error;
    throw relayError("INVALID_X402_REQUIREMENT", `token ${token} does not answer EIP-3009's DOMAIN_SEPARATOR() and authorizationState()`);
  }
  if (used) throw relayError("X402_NONCE_USED", `nonce ${nonce} was already used or cancelled by the vault on token ${token}`);
  const digest = x402Digest(request, domainSeparator);
  // The same authorization recorded already (signed again with another deadline): the vault refuses it too.
  const recorded = (await rpcFailure(() =>
    chain.clients.publicClient.readContract({ address: request.vaultAddress, abi: vaultAbi, functionName: "x402Authorizations", args: [digest], blockNumber } as never),
  )) as bigint;
  if (recorded !== 0n) throw relayError("X402_NONCE_USED", `the vault already recorded this authorization (nonce ${nonce} on token ${token})`);
  request.digest = digest;
}
