// The panel's verdicts bind on-chain (docs/design.md, "AI holds"): a request the vault holds for the
// AI scan (AiApprovalRequired) executes only with AiVerdict signatures of 2 of the 3 scanner keys
// its owner registered (setScanners), or with the owner's ReviewApproval. A VerdictPanel is the
// panel that judges such a request and, when it approves, returns the approving agents' signatures:
//
// - in this process (localPanel): the relayer's own scanner, one key per agent (safety, behavioral,
//   reasoning, in agentNames order). A leaked relayer host holds these keys too.
// - in its own process (`relay agents`, remotePanel in ../../agents/): the relayer posts the
//   request; the agents check it against the chain themselves, judge it and sign. The relayer's
//   host holds no scanner key.
import type { Address, Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { addressOfKey } from "../../crypto/key-address.ts";
import type { VaultDomain } from "../../../packages/client/src/intent-types.ts";
import type { RelayRequest } from "../../api/validate.ts";
import { verdictDigest, type SignedVerdict } from "../../eip712/verdict.ts";
import type { AiScenario } from "./scenario.ts";
import type { Scanner } from "./scanner.ts";
import { agentNames, type ScanInput, type ScanResult } from "./types.ts";

/** How long a verdict stays valid: the relayer sends the transaction within it. */
export const VERDICT_SECONDS = 600n;

/** What the panel is asked: the scan's input, and what its agents would sign. */
export interface Judgement {
  input: ScanInput;
  /** The devnet's forced outcome (metadata.scenario), if any. */
  scenario?: AiScenario;
  /** The request as the relayer checked it (a separate panel checks it against the chain itself). */
  request: RelayRequest;
  /** The vault's domain and the intent's hash (a swap-and-pay's: its payment's), as the relayer read them. */
  domain: VaultDomain;
  intentHash: Hex;
  /** The verdicts' deadline, unix seconds. */
  deadline: bigint;
}

export interface VerdictPanel {
  /** Where the panel runs, for the owner's record: "in-process" or the agents' URL. */
  readonly where: string;
  /** The panel's outcome and, when it approves, the approving agents' signatures. */
  judge(judgement: Judgement): Promise<{ result: ScanResult; verdicts: SignedVerdict[] }>;
}

/** The relayer's own scanner and three keys, one per agent (agentNames order). */
export function localPanel(scanner: Scanner, keys: readonly Hex[]): VerdictPanel & { addresses: Address[] } {
  if (keys.length !== agentNames.length) throw new Error(`the AI panel needs ${agentNames.length} scanner keys, one per agent`);
  // The addresses now (native libsecp256k1, crypto/key-address.ts), the signing accounts at the first
  // verdict: viem's pure-JS derivation costs ~1 ms a key, at every start of a relayer that may never
  // sign one (relay/testing restarts it around each snapshot and revert).
  const addresses = keys.map((key) => addressOfKey(key));
  let accounts: PrivateKeyAccount[] | undefined;
  return {
    where: "in-process",
    addresses,
    async judge(judgement) {
      const result = await scanner.scan(judgement.input, { scenario: judgement.scenario });
      if (!result.approved) return { result, verdicts: [] };
      accounts ??= keys.map((key) => privateKeyToAccount(key));
      return { result, verdicts: await signVerdicts(accounts, result, judgement) };
    },
  };
}

/** The approving agents' signatures of AiVerdict(intentHash, deadline) on the vault's domain. */
export async function signVerdicts(
  accounts: readonly ReturnType<typeof privateKeyToAccount>[],
  result: ScanResult,
  judgement: Pick<Judgement, "domain" | "intentHash" | "deadline">,
): Promise<SignedVerdict[]> {
  const hash = verdictDigest(judgement.domain, judgement.intentHash, judgement.deadline);
  const approving = result.verdicts.filter((v) => v.approve).map((v) => accounts[agentNames.indexOf(v.agent)]!);
  return Promise.all(approving.map(async (account) => ({ signer: account.address, signature: await account.sign({ hash }) })));
}
