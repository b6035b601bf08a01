// The text a wallet signs (EIP-191 personal_sign) to accept the relayer's terms of service. Shared by
// the relayer, which rebuilds it to verify an acceptance, and by the client and CLI, which sign it.
//
// The text is fixed: only the wallet, the terms version, the terms URL (when the relayer names one)
// and the issue time vary, each on its own line. The relayer never takes a client's text as it comes:
// it reads the issue time out of it, rebuilds the text from its own version and URL and the wallet,
// and requires the two to be identical. So a signature counts for one wallet and one version only,
// never for another version (or another relayer's terms at another URL). Chain ids are left out on
// purpose: the terms are the relayer's, and one acceptance covers every chain it serves.
import { getAddress, type Address } from "viem";

export interface TermsMessageFields {
  wallet: Address;
  version: string;
  url?: string;
  /** ISO 8601 UTC time, e.g. `2026-11-02T09:30:00.000Z`. */
  issuedAt: string;
}

const TITLE = "Relay terms of service";
const STATEMENT = "I accept the terms of service of this relayer for the vaults this wallet owns.";
const ISSUED_AT = /^Issued At: (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)$/m;

/** The exact text to sign. */
export function termsMessage(fields: TermsMessageFields): string {
  return [
    TITLE,
    "",
    STATEMENT,
    "",
    `Wallet: ${getAddress(fields.wallet)}`,
    `Terms version: ${fields.version}`,
    ...(fields.url === undefined ? [] : [`Terms URL: ${fields.url}`]),
    `Issued At: ${fields.issuedAt}`,
  ].join("\n");
}

/** The issue time written in a terms message, or undefined when it has none (or one that is not a time). */
export function issuedAtOf(message: string): string | undefined {
  const match = ISSUED_AT.exec(message);
  if (!match || Number.isNaN(Date.parse(match[1]!))) return undefined;
  return match[1];
}
