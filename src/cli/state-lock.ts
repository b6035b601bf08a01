// A state directory has one owner per role. The devnet role owns the manifests (`relay devnet`,
// `relay deploy`, `relay serve` when it starts its own devnet); the relayer role owns the ledger and
// the auth secret (every `relay serve`). Two roles, not one, because `relay devnet` in one terminal
// and `relay serve --rpc-url` in another on the same directory is the documented way to run them
// apart. A second owner of a role answers `relay: already running here (pid N, <urls>)` and exits
// before writing anything; the commands that only rewrite cli.json (pay, status, profiles) take no
// lock: they replace that one file atomically and delete nothing.
//
// Each claim of a role is a file `<stateDir>/<role>.lock.<generation>` (0600 like every file there;
// no subdirectory, so the directory keeps holding private files only). It holds the owner's pid, the
// start time of that pid (from /proc/<pid>/stat, so a pid reused by another program is not taken for
// the owner) and the URLs it serves. A claim is created whole (a private temporary file hard-linked
// into place, which fails if the name exists), so of two processes starting at once exactly one gets
// the next generation and the other, reading it, finds a live owner. A stale claim (its process
// killed with -9) is never deleted to make room: the next generation supersedes it, so there is no
// moment where two processes each think they removed the other's file. The winner then removes the
// dead claims it read.
import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, writePrivateFile } from "../private-files.ts";
import { CliError } from "./io.ts";

export type LockRole = "devnet" | "relayer";

/** What a claim file holds. */
export interface LockRecord {
  pid: number;
  /** The pid's start time in clock ticks since boot (/proc/<pid>/stat field 22); absent where there is no /proc. */
  startTime?: string;
  /** The command that holds the role, e.g. "serve". */
  command: string;
  /** Where the owner answers (relayer first, then RPC); empty while it is starting. */
  urls: string[];
}

export interface StateLock {
  readonly role: LockRole;
  readonly file: string;
  /** Records the URLs the owner answers on, for the message a second command prints. */
  setUrls(urls: readonly string[]): void;
  /** Gives the role up (removes this claim); idempotent. */
  release(): void;
}

/** Tries this many times when claims come and go under us; each lost race means a new live owner or a release. */
const ATTEMPTS = 50;

/**
 * Claims `role` of `stateDir` for this process, or throws CliError `already running here (pid N,
 * <urls>)` when a live process holds it. Nothing is written when the role is held.
 */
export function acquireStateLock(dir: string, role: LockRole, command: string): StateLock {
  const record: LockRecord = { pid: process.pid, ...startTimeField(process.pid), command, urls: [] };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const generations = claimsOf(dir, role);
    // Normally only the highest can be alive (each was claimed over dead ones), but every claim is
    // asked: a stray file with a higher number must not hide a live owner.
    const holders = generations.map((generation) => readClaim(claimFile(dir, role, generation)));
    const live = holders.find((h): h is LockRecord => typeof h === "object" && isAlive(h));
    if (live !== undefined) throw alreadyRunning(live);
    const next = (generations.at(-1) ?? 0) + 1;
    const file = claimFile(dir, role, next);
    // Lost the race for this generation: its winner is alive (or already gone); look again.
    if (!createExclusive(dir, file, record)) continue;
    // The claims read above were all dead; nobody else removes or claims below ours.
    for (const old of generations) rmSync(claimFile(dir, role, old), { force: true });
    return heldLock(role, file, record);
  }
  throw new CliError(`could not claim the ${role} lock in ${dir}: it kept changing; try again`);
}

/** The message for a live owner: `already running here (pid N, <urls>)`. */
export function alreadyRunning(holder: LockRecord): CliError {
  const where = holder.urls.length > 0 ? holder.urls.join(", ") : `${holder.command} still starting`;
  return new CliError(`already running here (pid ${holder.pid}, ${where})`);
}

/**
 * Runs `body` holding `roles` of `stateDir` (claimed in the order given, so every command claims
 * devnet before relayer), releasing them however it ends.
 */
export async function withStateLocks<T>(stateDir: string, roles: readonly LockRole[], command: string, body: (locks: StateLocks) => Promise<T>): Promise<T> {
  const held: StateLock[] = [];
  try {
    for (const role of roles) held.push(acquireStateLock(stateDir, role, command));
    return await body(new StateLocks(held));
  } finally {
    for (const lock of held.reverse()) lock.release();
  }
}

/** The roles a command holds, updated together. */
export class StateLocks {
  readonly #held: readonly StateLock[];
  constructor(held: readonly StateLock[]) {
    this.#held = held;
  }
  setUrls(urls: readonly (string | undefined)[]): void {
    const known = urls.filter((u): u is string => u !== undefined && u !== "");
    for (const lock of this.#held) lock.setUrls(known);
  }
}

function heldLock(role: LockRole, file: string, record: LockRecord): StateLock {
  let held = true;
  // A process that ends without a release (an uncaught error, process.exit) leaves no claim behind;
  // one killed with -9 does, and the next start supersedes it.
  const onExit = () => rmSync(file, { force: true });
  process.on("exit", onExit);
  return {
    role,
    file,
    setUrls(urls) {
      if (!held) return;
      // Replaced whole (temporary file renamed over it): a reader sees the old record or the new.
      writePrivateFile(file, JSON.stringify({ ...record, urls: [...urls] }));
    },
    release() {
      if (!held) return;
      held = false;
      process.off("exit", onExit);
      rmSync(file, { force: true });
    },
  };
}

function claimFile(dir: string, role: LockRole, generation: number): string {
  return path.join(dir, `${role}.lock.${generation}`);
}

/** The generations of `role`'s claims in `dir`, ascending; none when the directory does not exist. */
function claimsOf(dir: string, role: LockRole): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const pattern = new RegExp(`^${role}\\.lock\\.([1-9][0-9]{0,14})$`);
  return names.flatMap((name) => {
    const match = pattern.exec(name);
    return match ? [Number(match[1])] : [];
  }).sort((a, b) => a - b);
}

function readClaim(file: string): LockRecord | "gone" | "invalid" {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockRecord>;
    // A claim is written whole, so anything else is not ours (or damaged): it protects nothing.
    if (!Number.isSafeInteger(parsed.pid) || parsed.pid! <= 0) return "invalid";
    return {
      pid: parsed.pid!,
      ...(typeof parsed.startTime === "string" ? { startTime: parsed.startTime } : {}),
      command: typeof parsed.command === "string" ? parsed.command : "relay",
      urls: Array.isArray(parsed.urls) ? parsed.urls.filter((u): u is string => typeof u === "string") : [],
    };
  } catch {
    return "invalid";
  }
}

/** Creates `file` holding `record`, whole, unless it exists (then false). */
function createExclusive(dir: string, file: string, record: LockRecord): boolean {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = path.join(dir, `.lock.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  writeFileSync(temporary, JSON.stringify(record), { mode: PRIVATE_FILE_MODE, flag: "wx" });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Whether the claim's process still runs: its pid exists, is not a zombie, and started when the claim says. */
export function isAlive(holder: LockRecord): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else; a pid reused by another user's program is told
    // apart by its start time below.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const stat = procStat(holder.pid);
  if (stat === "no-proc") return true;
  if (stat === undefined || stat.state === "Z" || stat.state === "X") return false;
  return holder.startTime === undefined || holder.startTime === stat.startTime;
}

function startTimeField(pid: number): { startTime?: string } {
  const stat = procStat(pid);
  return stat === "no-proc" || stat === undefined ? {} : { startTime: stat.startTime };
}

/**
 * The state (field 3) and start time (field 22) of `pid` from /proc/<pid>/stat; undefined when the
 * pid has no entry, "no-proc" where there is no /proc at all (then only the pid's existence counts).
 */
function procStat(pid: number): { state: string; startTime: string } | undefined | "no-proc" {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return "no-proc";
    try {
      readdirSync("/proc/self");
      return undefined;
    } catch {
      return "no-proc";
    }
  }
  // Field 2 is the program name in parentheses and may itself hold spaces and parentheses: the
  // fields after it start past the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); field 22 is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (state === undefined || startTime === undefined) return "no-proc";
  return { state, startTime };
}
