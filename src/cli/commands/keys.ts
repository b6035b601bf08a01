// `relay keys new` and `relay profile …`: a fresh key pair, and saved sets of settings.
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { resolveStateDir } from "../state-dir.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { printResult } from "../output.ts";
import { deleteProfile, readProfiles, saveProfile, type Profile } from "../state.ts";
import { resolveSettings } from "../settings.ts";
import { definedOnly } from "../../../packages/client/src/defined.ts";

export function keysNew(options: { json?: boolean }, io: CliIO): void {
  const privateKey = generatePrivateKey();
  const address = privateKeyToAddress(privateKey);
  printResult(io, options, { address, privateKey }, [
    ["address", address],
    ["privateKey", privateKey],
  ]);
  io.stderr.write("relay: keep the private key secret; add the address as a bot with `relay owner bot add <address>`\n");
}

type ProfileOptions = Profile & { stateDir?: string; json?: boolean; chainId?: number | string; storeOwnerKey?: boolean };

const stateDirOf = (options: { stateDir?: string }, io: CliIO) => resolveStateDir(options.stateDir, io.env, io.cwd);

export async function profileSave(name: string, options: ProfileOptions, io: CliIO): Promise<void> {
  if (!/^[\w.-]{1,64}$/.test(name)) throw new CliError(`profile name must be 1-64 letters, digits, '.', '_' or '-', got "${name}"`, EXIT.USAGE);
  const { stateDir: _dir, json: _json, storeOwnerKey, ...given } = options;
  // The owner key controls the vault itself: kept on disk only when asked for by name.
  if (given.ownerKey !== undefined && !storeOwnerKey) {
    delete given.ownerKey;
    io.stderr.write(`relay: the owner key was not stored in profile ${name}; pass it with each owner command (or RELAY_OWNER_KEY), or save it with --store-owner-key\n`);
  }
  const profile = definedOnly(given) as ProfileOptions;
  // Validate what is saved the way it will be read (values only, no manifest needed).
  resolveSettings(profile, {}, io.cwd);
  const saved: Profile = { ...profile, ...(profile.chainId === undefined ? {} : { chainId: Number(profile.chainId) }) };
  await saveProfile(stateDirOf(options, io), name, saved);
  printResult(io, options, { name, ...redact(saved) }, [["saved", `profile ${name}: ${Object.keys(saved).join(", ") || "(empty)"}`]]);
}

export async function profileList(options: { stateDir?: string; json?: boolean }, io: CliIO): Promise<void> {
  const profiles = await readProfiles(stateDirOf(options, io));
  const redacted = Object.fromEntries(Object.entries(profiles).map(([name, p]) => [name, redact(p)]));
  if (options.json) {
    io.stdout.write(`${JSON.stringify(redacted)}\n`);
    return;
  }
  for (const [name, profile] of Object.entries(redacted)) {
    io.stdout.write(`${name}  ${Object.entries(profile).map(([k, v]) => `${k}=${v}`).join(" ")}\n`);
  }
}

export async function profileRemove(name: string, options: { stateDir?: string }, io: CliIO): Promise<void> {
  if (!(await deleteProfile(stateDirOf(options, io), name))) throw new CliError(`no profile "${name}"`);
  io.stdout.write(`removed profile ${name}\n`);
}

/** Keys are shown as the address they belong to. */
function redact(profile: Profile): Record<string, string | number> {
  const shown: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(profile)) {
    if (value === undefined) continue;
    shown[key] = key.endsWith("Key") ? `<key of ${privateKeyToAddress(value as `0x${string}`)}>` : value;
  }
  return shown;
}
