// The gas limit a transaction is sent with. A node's estimate holds for the block it was made on; the
// transaction is mined in a later one, where the same call can cost more: the vault's bucket words
// carry the time they were written, and rewriting a word with the value it holds costs less than
// changing it, so a policy update estimated in the second the buckets were last written needs more
// once mined a second later (test/chain/sender.test.ts). The relayer's executes, the devnet's and
// `relay deploy`'s transactions and the owner helpers all send the estimate with this headroom.

/** `estimate` plus 30% and 20,000 gas. */
export function gasWithHeadroom(estimate: bigint): bigint {
  return (estimate * 13n) / 10n + 20_000n;
}
