// `relay terms status [wallet]` and `relay terms accept`: the relayer's terms of service, which a
// vault's owner accepts (by signing them with the owner key) before the relayer runs the vault's intents.
import { privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import type { Address } from "viem";
import { acceptTerms } from "../../../packages/client/src/terms.ts";
import type { TosStatus } from "../../../packages/client/src/types.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { printResult } from "../output.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import { requireOwnerKey } from "../settings.ts";
import { relayClient } from "./requests.ts";

type Options = SettingsOptions & { ownerKey?: string };

/** `relay terms status [wallet]`: the wallet given, else the owner key's. */
export async function termsStatus(wallet: string | undefined, options: Options, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  let who = wallet;
  if (who === undefined) {
    if (settings.ownerKey === undefined) throw new CliError("name the wallet, or give --owner-key", EXIT.USAGE);
    who = privateKeyToAddress(settings.ownerKey);
  }
  show(await relayClient(settings, io).tosStatus(who as Address), options, io);
}

/** `relay terms accept`: signs the relayer's current terms text with the owner key and sends it. */
export async function termsAccept(options: Options, io: CliIO): Promise<void> {
  const settings = await settingsFor(options, io);
  const owner = privateKeyToAccount(requireOwnerKey(settings));
  show(await acceptTerms(relayClient(settings, io), owner), options, io);
}

function show(status: TosStatus, options: Options, io: CliIO): void {
  printResult(io, options, status, [
    ["wallet", status.wallet],
    ["required", status.required ? `yes, version ${status.version}` : "no (this relayer has no terms)"],
    ["url", status.url],
    ["accepted", status.accepted ? "yes" : "no — run `relay terms accept` with the owner key"],
    ["accepted version", status.acceptedVersion],
    ["accepted at", status.acceptedAt],
  ]);
}
