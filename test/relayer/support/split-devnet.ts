// A crash test's setting, as a user meets it: `relay devnet` in one process and `relay serve
// --rpc-url` in another, both on one state directory, so that the relayer can be killed and started
// again while the chain keeps its state. Each test file calls splitDevnet() once at its top.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { Manifest } from "../../../src/devnet/manifest.ts";
import { spawnRelay, type SpawnedRelay } from "../../helpers/cli.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

export interface SplitDevnet {
  /** The devnet's manifest, read when asked (the devnet writes it once ready). */
  readManifest(): Manifest;
  /** Starts `relay serve --rpc-url <the devnet>` with extra environment (e.g. RELAY_FAULT) and waits until it is ready. */
  startServe(env?: Record<string, string>): Promise<{ relay: SpawnedRelay; url: string }>;
}

/** Starts the devnet before the file's tests and ends it and every relayer started after them. */
export function splitDevnet(prefix: string): SplitDevnet {
  const stateDir = tempDir(prefix);
  const started: SpawnedRelay[] = [];
  beforeAll(async () => {
    const devnet = spawnRelay(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
    started.push(devnet);
    await devnet.waitFor(/relay: ready/);
  });
  afterAll(() => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
  });
  const readManifest = (): Manifest => JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8"));
  return {
    readManifest,
    async startServe(env = {}) {
      const relay = spawnRelay(["serve", "--rpc-url", readManifest().rpcUrl, "--port", "0", "--state-dir", stateDir], env);
      started.push(relay);
      await relay.waitFor(/relay: ready/);
      const url = /relayer (http:\/\/127\.0\.0\.1:\d+)/.exec(relay.output.stderr)![1]!;
      return { relay, url };
    },
  };
}
