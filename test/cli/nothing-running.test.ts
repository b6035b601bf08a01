// A newcomer's first stumbles with real processes (bin/relay): Ctrl-C while `relay serve` (or
// `relay devnet`) starts stops it cleanly (no "ready", exit 130, nothing left listening), and `relay pay` once nothing runs
// any more (the state directory still has the stopped devnet's manifest) ends with the README's exit
// code for an unreachable relayer, 5, and the question to ask: is `relay serve` running?
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { runMain, spawnRelay, type SpawnedRelay } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { freePort } from "../support/free-port.ts";

const started: SpawnedRelay[] = [];
afterAll(() => {
  for (const relay of started) if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill("SIGKILL");
});

function serve(stateDir: string): SpawnedRelay {
  const relay = spawnRelay(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir]);
  started.push(relay);
  return relay;
}


/** Whether anything answers HTTP at `url` (a JSON-RPC call, as the CLI would send). */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}', signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

describe("Ctrl-C while relay serve starts", () => {
  it("stops at once after the step under way: no ready line, exit 130, the chain it started is closed", async () => {
    const stateDir = tempDir("relay-interrupt-");
    const relay = serve(stateDir);
    // The first progress line: the devnet is being deployed, nothing is ready yet.
    await relay.waitFor(/^relay: deploying contracts on chain 84532$/m);
    relay.child.kill("SIGINT");
    const exit = await relay.exited;
    expect(exit).toEqual({ code: 130, signal: null });
    expect(relay.output.stderr).not.toMatch(/ready/);
    expect(relay.output.stdout).toBe("");
    expect(relay.output.stderr.trim().split("\n").at(-1)).toBe("relay: interrupted (SIGINT) during start-up; stopped");
    // The chain the start got as far as is not left behind: its manifest's RPC port does not answer.
    const manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
    expect(manifest.relayerUrl).toBeUndefined();
    expect(await answers(manifest.rpcUrl)).toBe(false);
  }, 180_000);
});

describe("stopping relay devnet while it starts", () => {
  it("in-process (main's signal aborted with no reason counts as Ctrl-C): no ready, 130, its chain closed", async () => {
    const stateDir = tempDir("relay-interrupt-devnet-");
    const run = runMain(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
    await run.waitFor(/^relay: deploying contracts on chain 84532$/m, 120_000);
    run.stop();
    expect(await run.done).toBe(130);
    expect(run.output.stderr).not.toMatch(/ready/);
    expect(run.output.stderr.trim().split("\n").at(-1)).toBe("relay: interrupted (SIGINT) during start-up; stopped");
    const manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
    expect(await answers(manifest.rpcUrl)).toBe(false);
  }, 180_000);
});

describe("relay pay once relay serve has stopped", () => {
  it("exits 5 naming the relayer and the chain it could not reach, and asks whether relay serve runs", async () => {
    const stateDir = tempDir("relay-stopped-");
    const relay = serve(stateDir);
    await relay.waitFor(/^relay: ready/m);
    const manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
    relay.child.kill("SIGTERM");
    // Stopped after it was ready: a clean shutdown, exit 0.
    expect(await relay.exited).toEqual({ code: 0, signal: null });

    // The relayer's URL is the default one (8787) after a stop; a closed port stands for it here, so
    // that a relayer someone runs on 8787 on this machine cannot answer.
    const relayerUrl = `http://127.0.0.1:${await freePort()}`;
    const run = runMain(["pay", "--to", "owner", "--amount", "1", "--token", "USDC", "--state-dir", stateDir], { RELAY_URL: relayerUrl });
    const code = await run.done;
    expect(run.output.stdout).toBe("");
    expect(run.output.stderr).toBe(
      `relay: relayer unreachable at ${relayerUrl} (connection failed), nor a JSON-RPC node at ${manifest.rpcUrl} (the devnet manifest's, in ${stateDir}); ` +
        "is `relay serve` running? (--relayer-url, RELAY_URL; --rpc-url, RELAY_RPC_URL)\n",
    );
    expect(code).toBe(5);

    // `relay sign` needs only the chain: exit 1 (chain unreachable), with the same question.
    const sign = runMain(["sign", "payment", "--to", "owner", "--amount", "1", "--token", "USDC", "--state-dir", stateDir]);
    expect(await sign.done).toBe(1);
    expect(sign.output.stderr).toBe(
      `relay: cannot reach a JSON-RPC node at ${manifest.rpcUrl} (the devnet manifest's, in ${stateDir}); is \`relay serve\` (or \`relay devnet\`) running? (--rpc-url, RELAY_RPC_URL)\n`,
    );
  }, 180_000);
});
