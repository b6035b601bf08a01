// The CLI's cli.json: recent requests newest first (bounded), status updates, profiles.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deleteProfile, readProfiles, recentRequests, rememberRequest, RECENT_LIMIT, saveProfile, updateRequestStatus, type RecentRequest } from "../../src/cli/state.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const dir = () => tempDir("relay-state-");
const request = (requestId: string): RecentRequest => ({
  requestId,
  kind: "payment",
  relayerUrl: "http://127.0.0.1:8787",
  chainId: 84532,
  vault: "0x00000000000000000000000000000000000000aa",
  status: "pending_review",
  submittedAt: "2025-01-01T00:00:00.000Z",
});

describe("recent requests", () => {
  it("keeps them newest first in <state-dir>/cli.json, at most RECENT_LIMIT", async () => {
    const stateDir = dir();
    for (let i = 0; i < RECENT_LIMIT + 3; i++) await rememberRequest(stateDir, request(`r${i}`));
    const recent = await recentRequests(stateDir);
    expect(recent).toHaveLength(RECENT_LIMIT);
    expect(recent[0]?.requestId).toBe(`r${RECENT_LIMIT + 2}`);
    expect(JSON.parse(readFileSync(path.join(stateDir, "cli.json"), "utf8")).recent[0].requestId).toBe(`r${RECENT_LIMIT + 2}`);
  });

  it("moves a re-sent request to the front and updates statuses", async () => {
    const stateDir = dir();
    await rememberRequest(stateDir, request("a"));
    await rememberRequest(stateDir, request("b"));
    await rememberRequest(stateDir, request("a"));
    await updateRequestStatus(stateDir, "b", "approved");
    await updateRequestStatus(stateDir, "unknown", "approved");
    expect((await recentRequests(stateDir)).map((r) => [r.requestId, r.status])).toEqual([
      ["a", "pending_review"],
      ["b", "approved"],
    ]);
  });
});

describe("profiles", () => {
  it("saves, replaces and deletes named profiles", async () => {
    const stateDir = dir();
    await saveProfile(stateDir, "test", { relayerUrl: "http://a" });
    await saveProfile(stateDir, "test", { chainId: 8453 });
    expect(await readProfiles(stateDir)).toEqual({ test: { chainId: 8453 } });
    expect(await deleteProfile(stateDir, "test")).toBe(true);
    expect(await deleteProfile(stateDir, "test")).toBe(false);
  });
});
