// The CLI's own small state, `<state-dir>/cli.json` (lowdb): the most recent requests it sent, so
// that `relay status` without an id means "the last one", and named profiles of settings.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Low } from "lowdb";
import { JSONFile } from "lowdb/node";
import type { Address } from "viem";
import type { RequestKind, RequestStatus } from "../client/types.ts";

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

async function open(stateDir: string) {
  mkdirSync(stateDir, { recursive: true });
  // The file adapter itself, not lowdb's preset: the preset keeps data in memory when NODE_ENV=test.
  const db = new Low<CliState>(new JSONFile(path.join(stateDir, CLI_STATE_FILE)), { recent: [], profiles: {} });
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
