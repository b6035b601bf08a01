// The CLI's own small state, `<state-dir>/cli.json` (lowdb): the most recent requests it sent, so
// that `relay status` without an id means "the last one", and named profiles of settings. Profiles
// may hold keys: the file is 0600 in a 0700 state directory (see private-files.ts).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Low, type Adapter } from "lowdb";
import { privateStateDir, writePrivateFile } from "../private-files.ts";
import type { Address } from "viem";
import type { RequestKind, RequestStatus } from "../../packages/client/src/types.ts";

export const CLI_STATE_FILE = "cli.json";
/** How many recent requests are kept. */
export const RECENT_LIMIT = 50;

/** A request this CLI submitted. */
export interface RecentRequest {
  requestId: string;
  kind: RequestKind;
  relayerUrl: string;
  chainId: number;
  vault: Address;
  status: RequestStatus;
  /** ISO time of submission. */
  submittedAt: string;
}

/** Saved settings, selected with `--profile <name>`; the same keys as the settings flags. */
export interface Profile {
  relayerUrl?: string;
  rpcUrl?: string;
  chainId?: number;
  vault?: string;
  botKey?: string;
  ownerKey?: string;
}

export interface CliState {
  recent: RecentRequest[];
  profiles: Record<string, Profile>;
}

/**
 * lowdb's JSON file adapter, writing 0600: lowdb's own (steno) writes a fresh file with the umask's
 * mode (0644) on every save. A file adapter, not lowdb's preset, which keeps data in memory when
 * NODE_ENV=test.
 */
class PrivateJsonFile<T> implements Adapter<T> {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.file, "utf8")) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async write(data: T): Promise<void> {
    writePrivateFile(this.file, JSON.stringify(data, null, 2));
  }
}

async function open(stateDir: string) {
  privateStateDir(stateDir);
  const file = path.join(stateDir, CLI_STATE_FILE);
  const db = new Low<CliState>(new PrivateJsonFile<CliState>(file), { recent: [], profiles: {} });
  await db.read();
  db.data.recent ??= [];
  db.data.profiles ??= {};
  return db;
}

/** Remember a submitted request (newest first), or update the status of one already known. */
export async function rememberRequest(stateDir: string, request: RecentRequest): Promise<void> {
  const db = await open(stateDir);
  const others = db.data.recent.filter((r) => r.requestId !== request.requestId);
  db.data.recent = [request, ...others].slice(0, RECENT_LIMIT);
  await db.write();
}

/** Update the last known status of a remembered request; unknown ids are ignored. */
export async function updateRequestStatus(stateDir: string, requestId: string, status: RequestStatus): Promise<void> {
  const db = await open(stateDir);
  const known = db.data.recent.find((r) => r.requestId === requestId);
  if (known === undefined || known.status === status) return;
  known.status = status;
  await db.write();
}

/** The remembered requests, newest first. */
export async function recentRequests(stateDir: string): Promise<RecentRequest[]> {
  return (await open(stateDir)).data.recent;
}

export async function readProfiles(stateDir: string): Promise<Record<string, Profile>> {
  return (await open(stateDir)).data.profiles;
}

export async function saveProfile(stateDir: string, name: string, profile: Profile): Promise<void> {
  const db = await open(stateDir);
  db.data.profiles[name] = profile;
  await db.write();
}

/** Returns false when there was no such profile. */
export async function deleteProfile(stateDir: string, name: string): Promise<boolean> {
  const db = await open(stateDir);
  if (!(name in db.data.profiles)) return false;
  delete db.data.profiles[name];
  await db.write();
  return true;
}
