// `relay time`: the devnet's chain time, and moving it forward (`advance`, `set`) so that a bot
// author can test "the daily limit resets tomorrow" in a second. The relayer keeps a clock per chain,
// and a devnet's follows that chain (src/relayer/clock.ts), so the spend windows, deadlines and review
// lapses of that chain move too, and those of any other chain it serves do not.
//
// Only on a devnet, asked two ways: the manifest must say relay deployed the suite on a development
// node (`devnet: true`) and the node must say it is one (chain/dev-node.ts). Never the URL. A chain
// that is not a devnet is refused before anything is sent to it, so nothing moves.
import type { Clients } from "../../chain/clients.ts";
import { nodeKind } from "../../chain/dev-node.ts";
import { CliError, EXIT, type CliIO } from "../io.ts";
import { settingsFor, type SettingsOptions } from "../register/common.ts";
import type { Settings } from "../settings.ts";
import { connectChain } from "./chain.ts";

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };
/** Farthest one step may move the clock: ten years, far beyond any window, far below overflow. */
const MAX_STEP_SECONDS = 10 * 365 * 86_400;

/** `30s`, `90m`, `24h`, `2d`, or plain seconds → seconds (a usage error otherwise). */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNITS[match[2] || "s"]! : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_STEP_SECONDS) {
    throw new CliError(`the duration must be a whole number of seconds, or one with s, m, h or d (30s, 90m, 24h, 2d), from 1 s to 10 years; got "${text}"`, EXIT.USAGE);
  }
  return seconds;
}

/** An ISO-8601 date and time, or unix seconds → unix seconds (a usage error otherwise). */
export function parseInstant(text: string): number {
  const trimmed = text.trim();
  const seconds = /^\d+$/.test(trimmed) ? Number(trimmed) : /^\d{4}-\d{2}-\d{2}/.test(trimmed) ? Math.floor(Date.parse(trimmed) / 1000) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new CliError(`the time must be an ISO-8601 date and time (2030-01-01T00:00:00Z) or unix seconds; got "${text}"`, EXIT.USAGE);
  }
  return seconds;
}

/** `relay time`: prints the chain's time. */
export async function showTime(options: SettingsOptions, io: CliIO): Promise<void> {
  const clients = await devnetChain(await settingsFor(options, io));
  print(await chainTime(clients), options, io);
}

/** `relay time advance <duration>`: moves the chain's time forward and mines a block. */
export async function advanceTime(duration: string, options: SettingsOptions, io: CliIO): Promise<void> {
  const seconds = parseDuration(duration);
  const clients = await devnetChain(await settingsFor(options, io));
  await rpc(clients, "evm_increaseTime", [seconds]);
  await rpc(clients, "evm_mine", []);
  print(await chainTime(clients), options, io);
}

/** `relay time set <ISO-8601 | unix seconds>`: moves the chain's time forward to that instant and mines a block. */
export async function setTime(instant: string, options: SettingsOptions, io: CliIO): Promise<void> {
  const target = parseInstant(instant);
  const clients = await devnetChain(await settingsFor(options, io));
  const now = await chainTime(clients);
  if (target <= now) {
    throw new CliError(`${iso(target)} is not after the chain's time ${iso(now)}: time only moves forward (a fresh devnet starts at the wall clock)`, EXIT.USAGE);
  }
  await rpc(clients, "evm_setNextBlockTimestamp", [target]);
  await rpc(clients, "evm_mine", []);
  print(await chainTime(clients), options, io);
}

/** The settings' chain, refused unless the manifest and the node both say it is a devnet. */
async function devnetChain(settings: Settings): Promise<Clients> {
  const refuse = (why: string) => new CliError(`time travel is for a devnet only: ${why}`);
  if (settings.manifest?.devnet !== true) {
    throw refuse(`no manifest in ${settings.stateDir} says relay deployed to a development node (start one with \`relay devnet\`, or give its --state-dir)`);
  }
  const clients = await connectChain(settings);
  const kind = await nodeKind(settings.rpcUrl, clients.chain.id);
  if (kind !== "development") throw refuse(`the node at ${settings.rpcUrl} ${kind === "unreachable" ? "did not answer" : "is not a development node"}`);
  return clients;
}

/** The latest block's timestamp, unix seconds. */
async function chainTime(clients: Clients): Promise<number> {
  const block = await clients.publicClient.getBlock({ blockTag: "latest" });
  return Number(block.timestamp);
}

async function rpc(clients: Clients, method: string, params: unknown[]): Promise<void> {
  try {
    await clients.publicClient.request({ method, params } as never);
  } catch (error) {
    throw new CliError(`the node refused ${method}: ${(error as Error).message.split("\n")[0]}`);
  }
}

function print(seconds: number, options: SettingsOptions, io: CliIO): void {
  io.stdout.write(options.json ? `${JSON.stringify({ time: iso(seconds), unix: seconds })}\n` : `${iso(seconds)} (${seconds})\n`);
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
}
