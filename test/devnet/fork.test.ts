// --fork: a devnet forked from another chain (here another devnet on loopback, since no live
// network is reachable from tests) keeps the forked state and adds its own suite.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import { readArtifact } from "../../src/chain/artifacts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const tmp = (label: string) => tempDir(`relay-${label}-`);

describe("relay devnet --fork", () => {
  const upstreamDir = tmp("upstream");
  const forkDir = tmp("fork");
  let upstream: InProcessRun;
  let fork: InProcessRun;
  let up: Manifest;
  let forked: Manifest;

  beforeAll(async () => {
    upstream = runMain(["devnet", "--rpc-port", "0", "--state-dir", upstreamDir]);
    await upstream.waitFor(/relay: ready/);
    up = JSON.parse(readFileSync(path.join(upstreamDir, "devnet.json"), "utf8"));
    fork = runMain(["devnet", "--rpc-port", "0", "--fork", up.rpcUrl, "--state-dir", forkDir]);
    await fork.waitFor(/relay: ready/);
    forked = JSON.parse(readFileSync(path.join(forkDir, "devnet.json"), "utf8"));
  });
  afterAll(async () => {
    fork?.stop();
    upstream?.stop();
    await Promise.all([fork?.done, upstream?.done]);
  });

  it("serves the forked chain's state: the upstream vault exists there too", async () => {
    const { publicClient } = clientsFor(forked.rpcUrl, forked.chainId);
    const isVault = await publicClient.readContract({
      address: up.contracts.factory as Address, abi: readArtifact("ServiceVaultFactory").abi, functionName: "isVault", args: [up.contracts.vault as Address],
    });
    expect(isVault).toBe(true);
  });

  it("deploys its own suite on top, reusing the mock tokens found at the canonical addresses", () => {
    expect(forked.contracts.factory).not.toBe(up.contracts.factory);
    expect(forked.tokens.USDC).toEqual(up.tokens.USDC);
  });

  it("leaves the upstream chain untouched", async () => {
    const { publicClient } = clientsFor(up.rpcUrl, up.chainId);
    expect(await publicClient.getCode({ address: forked.contracts.factory as Address })).toBeUndefined();
  });
});
