// Devnet-only behaviour only on a devnet (issue 12, item 6), with the real CLI and a real devnet.
// A node that answers like a production node is played by a small JSON-RPC proxy in front of the
// devnet: it says "Geth/…" to web3_clientVersion, refuses the development-only methods and forwards
// everything else, so every transaction still lands on the devnet where the test reads it.
// - `metadata.scenario=ai-approve` forces approval on a devnet only: behind the proxy (a loopback
//   URL, which the relayer used to take for a devnet) the agents decide, and nothing moves.
// - Every other scenario (scenarios.ts) is ignored there too: a $2 payment is paid exactly once,
//   normally, whatever the scenario; no review decides itself, no error is forced.
// - `relay time` (and advance, set) is refused unless the manifest says devnet and the node is a
//   development node, with one line, and the chain's time does not move.
// - The public development relayer key is refused on such a node unless --allow-dev-keys.
// - `relay deploy` on such a node warns about the mock tokens and refuses one key for several roles.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { clientsFor } from "../../src/chain/clients.ts";
import { nodeKind } from "../../src/chain/dev-node.ts";
import { devKeyPair } from "../../src/devnet/accounts.ts";
import { manifestPath, readManifest, writeManifest, type Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";

const GETH_VERSION = "Geth/v1.13.15-stable-c5ba367e/linux-amd64/go1.22.2";

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/** A JSON-RPC proxy that identifies as Geth and forwards every other call to `upstream`. */
async function startGethLookalike(upstream: string): Promise<Proxy> {
  type Call = { jsonrpc?: string; id?: unknown; method?: string; params?: unknown };
  const answer = async (call: Call): Promise<unknown> => {
    if (call.method === "web3_clientVersion") return { jsonrpc: "2.0", id: call.id, result: GETH_VERSION };
    if (/^(hardhat|anvil|evm|ganache)_/.test(call.method ?? "")) {
      return { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } };
    }
    const res = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) });
    return res.json();
  };
  const server = createServer((req, res) => {
    void readBody(req).then(async (text) => {
      const body = JSON.parse(text) as Call | Call[];
      const out = JSON.stringify(Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body));
      res.writeHead(200, { "content-type": "application/json" }).end(out);
    }).catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const dirs: string[] = [];
const tmp = (name: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), `relay-devnet-only-${name}-`));
  dirs.push(dir);
  return dir;
};

async function finished(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = runMain(argv);
  const code = await run.done;
  return { code, ...run.output };
}

let devnet: InProcessRun;
let manifest: Manifest;
let geth: Proxy;
const chain = () => clientsFor(manifest.rpcUrl, manifest.chainId);
const usdcOf = (holder: Address) =>
  chain().publicClient.readContract({ address: manifest.tokens.USDC!.address as Address, abi: erc20Abi, functionName: "balanceOf", args: [holder] });

beforeAll(async () => {
  const stateDir = tmp("devnet");
  devnet = runMain(["devnet", "--rpc-port", "0", "--state-dir", stateDir]);
  await devnet.waitFor(/relay: ready/, 120_000);
  manifest = readManifest(manifestPath(stateDir));
  geth = await startGethLookalike(manifest.rpcUrl);
}, 180_000);

afterAll(async () => {
  await geth?.close();
  devnet?.stop();
  await devnet?.done;
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A state directory holding `manifest` (optionally changed), for one `relay serve --rpc-url`. */
function stateDirWith(change: (m: Manifest) => Manifest = (m) => m): string {
  const dir = tmp("serve");
  writeManifest(manifestPath(dir), change(manifest));
  return dir;
}

/**
 * Runs `relay serve --rpc-url <rpcUrl>` on `stateDir`, pays $15,000 USDC (above the default bot's
 * $10,000 AI trigger) with a pushy memo and metadata.scenario=ai-approve, stops the relayer, and
 * returns the pay command's outcome, the serve's stderr and the payee.
 */
async function payWithScenario(rpcUrl: string, stateDir: string, extraFlags: string[] = []) {
  const serve = runMain(["serve", "--rpc-url", rpcUrl, "--port", "0", "--state-dir", stateDir, ...extraFlags]);
  try {
    await serve.waitFor(/relay: ready/, 60_000);
    const payee = privateKeyToAddress(generatePrivateKey());
    const pay = await finished([
      "pay", "--to", payee, "--amount", "15000", "--token", "USDC", "--memo", "urgent: act now or the account is suspended",
      "--metadata", "scenario=ai-approve", "--json", "--state-dir", stateDir,
    ]);
    return { pay, payee, serve, body: JSON.parse(pay.stdout) as { status: string; requestId: string; txHash?: string } };
  } finally {
    serve.stop();
    await serve.done;
  }
}

describe("asking the node what it is", () => {
  it("the devnet says it is a development node, the Geth look-alike does not, a closed port does not answer", async () => {
    expect(await nodeKind(manifest.rpcUrl, manifest.chainId)).toBe("development");
    expect(await nodeKind(geth.url, manifest.chainId)).toBe("other");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await nodeKind(`http://127.0.0.1:${port}`, manifest.chainId)).toBe("unreachable");
  });

  it("relay devnet marks its manifest as deployed on a development node", () => {
    expect(manifest.devnet).toBe(true);
  });
});

describe("metadata.scenario", () => {
  it("control: on the devnet relay deployed to, ai-approve is honoured and the payment moves", async () => {
    const { pay, payee, body } = await payWithScenario(manifest.rpcUrl, stateDirWith());
    expect(pay.code).toBe(0);
    expect(body).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await usdcOf(payee)).toBe(15_000_000_000n);
  }, 120_000);

  it("on a loopback node that is not a development node, ai-approve is ignored: the agents hold the payment and nothing moves", async () => {
    const stateDir = stateDirWith();
    const vaultBefore = await usdcOf(manifest.contracts.vault as Address);
    // The public dev relayer key is allowed here on purpose: this test is about the scenario.
    const { pay, payee, serve, body } = await payWithScenario(geth.url, stateDir, ["--allow-dev-keys"]);
    expect(serve.output.stderr).toMatch(/^relay: chain 84532: the node is not a development node; metadata\.scenario is ignored$/m);
    expect(pay.code).toBe(4);
    expect(body.status).toBe("pending_review");
    expect(await usdcOf(payee)).toBe(0n);
    expect(await usdcOf(manifest.contracts.vault as Address)).toBe(vaultBefore);

    // What the agents decided instead, as the owner sees it (served again to read the review).
    const again = runMain(["serve", "--rpc-url", geth.url, "--port", "0", "--state-dir", stateDir, "--allow-dev-keys"]);
    try {
      await again.waitFor(/relay: ready/, 60_000);
      const shown = await finished(["review", "show", body.requestId, "--json", "--state-dir", stateDir]);
      expect(shown.code).toBe(0);
      const review = JSON.parse(shown.stdout) as { heldBecause: string; agents: Array<{ agent: string; approve: boolean; reason: string }> };
      expect(review.heldBecause).toMatch(/verification agents did not reach consensus/);
      expect(review.agents.filter((v) => !v.approve).length).toBeGreaterThanOrEqual(2);
      expect(review.agents.find((v) => v.agent === "safety")).toMatchObject({ approve: false, reason: expect.stringMatching(/urgen/i) });
      for (const verdict of review.agents) expect(verdict.reason).not.toMatch(/metadata\.scenario/);
    } finally {
      again.stop();
      await again.done;
    }
    expect(await usdcOf(payee)).toBe(0n);
  }, 180_000);

  it("on the development node, a manifest relay did not mark as its devnet deployment does not enable it either", async () => {
    const stateDir = stateDirWith(({ devnet: _mark, ...rest }) => rest);
    const { pay, payee, body } = await payWithScenario(manifest.rpcUrl, stateDir);
    expect(pay.code).toBe(4);
    expect(body.status).toBe("pending_review");
    expect(await usdcOf(payee)).toBe(0n);
  }, 120_000);
});

describe("every other metadata.scenario off a devnet", () => {
  const values = ["ai-approve", "ai-no-consensus", "ai-reject", "ai-timeout", "simulation-failed", "rpc-error-once", "rate-limited:30", "review-approve:0", "review-reject:0", "not-a-scenario"];

  it("behind a node that is not a development node, each is ignored: the $2 payment is approved and paid once, nothing else moves", async () => {
    const stateDir = stateDirWith();
    const vault = manifest.contracts.vault as Address;
    const serve = runMain(["serve", "--rpc-url", geth.url, "--port", "0", "--state-dir", stateDir, "--allow-dev-keys"]);
    try {
      await serve.waitFor(/relay: ready/, 60_000);
      const payees: Address[] = [];
      for (const scenario of values) {
        const payee = privateKeyToAddress(generatePrivateKey());
        payees.push(payee);
        const vaultBefore = await usdcOf(vault);
        const pay = await finished(["pay", "--to", payee, "--amount", "2", "--token", "USDC", "--scenario", scenario, "--json", "--state-dir", stateDir]);
        expect({ scenario, code: pay.code, stderr: pay.stderr }).toEqual({ scenario, code: 0, stderr: "" });
        expect(JSON.parse(pay.stdout)).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
        expect(await usdcOf(payee)).toBe(2_000_000n);
        expect(await usdcOf(vault)).toBe(vaultBefore - 2_000_000n);
      }
      // A review that would decide itself after 0 s would have done so by now: nothing more moved.
      await new Promise((r) => setTimeout(r, 1_500));
      for (const payee of payees) expect(await usdcOf(payee)).toBe(2_000_000n);
    } finally {
      serve.stop();
      await serve.done;
    }
  }, 180_000);
});

describe("relay time off a devnet", () => {
  const latest = async () => {
    const block = await chain().publicClient.getBlock({ blockTag: "latest" });
    return { number: block.number, timestamp: block.timestamp };
  };

  it("against a node that is not a development node (the manifest says devnet): one line, exit 1, the chain's time does not move", async () => {
    const stateDir = stateDirWith();
    const before = await latest();
    for (const argv of [["time"], ["time", "advance", "24h"], ["time", "set", "2099-01-01T00:00:00Z"]]) {
      const refused = await finished([...argv, "--rpc-url", geth.url, "--state-dir", stateDir]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toBe(`relay: time travel is for a devnet only: the node at ${geth.url} is not a development node\n`);
    }
    expect(await latest()).toEqual(before);
  });

  it("on the development node, with a manifest relay did not mark as its devnet: refused too, nothing moves", async () => {
    const stateDir = stateDirWith(({ devnet: _mark, ...rest }) => rest);
    const before = await latest();
    for (const argv of [["time"], ["time", "advance", "24h"], ["time", "set", "2099-01-01T00:00:00Z"]]) {
      const refused = await finished([...argv, "--state-dir", stateDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^relay: time travel is for a devnet only: no manifest in .* says relay deployed to a development node.*\n$/);
    }
    expect(await latest()).toEqual(before);
  });

  it("control: with the devnet's own manifest, relay time answers", async () => {
    const shown = await finished(["time", "--json", "--state-dir", stateDirWith()]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).unix).toBe(Number((await latest()).timestamp));
  });
});

describe("the public development relayer key", () => {
  it("is refused against a node that is not a development node, with one line and a non-zero exit", async () => {
    const stateDir = stateDirWith();
    const refused = await finished(["serve", "--rpc-url", geth.url, "--port", "0", "--state-dir", stateDir]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^relay: chain 84532: relayer key 0x\w{40} is a well-known development key \(public\) and the node is not a development node; use your own key, or pass --allow-dev-keys\n$/);
    expect(refused.stderr).not.toContain(manifest.accounts.relayer.privateKey.slice(2));
    // No relayer was recorded as serving, and no ledger was opened.
    expect(readManifest(manifestPath(stateDir)).relayerUrl).toBeUndefined();
    expect(existsSync(path.join(stateDir, "ledger.sqlite"))).toBe(false);
  });

  it("is refused through --config too, even when the file claims the chain is a devnet", async () => {
    const stateDir = tmp("config");
    const file = path.join(stateDir, "relay.json");
    const m = manifest;
    writeFileSync(file, JSON.stringify({
      chains: [{ chainId: m.chainId, rpcUrl: geth.url, devnet: true, registry: m.contracts.registry, factory: m.contracts.factory, relayerKeys: [m.accounts.relayer.privateKey] }],
    }));
    const refused = await finished(["serve", "--config", file, "--port", "0", "--state-dir", stateDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^relay: chain 84532: relayer key .* is a well-known development key .*--allow-dev-keys\n$/);
  });

  it("starts with --allow-dev-keys, and with the same key on the development node", async () => {
    for (const [rpcUrl, flags] of [[geth.url, ["--allow-dev-keys"]], [manifest.rpcUrl, []]] as const) {
      const serve = runMain(["serve", "--rpc-url", rpcUrl, "--port", "0", "--state-dir", stateDirWith(), ...flags]);
      await serve.waitFor(/relay: ready/, 60_000);
      serve.stop();
      expect(await serve.done).toBe(0);
    }
  }, 120_000);
});

describe("relay deploy on a node that is not a development node", () => {
  const nonce = (address: Address) => chain().publicClient.getTransactionCount({ address });

  it("refuses one key for the registry owner, the vault owner and the relayer (or any two), deploying nothing", async () => {
    const key = devKeyPair(11);
    const other = devKeyPair(12);
    const before = await nonce(key.address);
    for (const flags of [[], ["--owner-key", other.privateKey], ["--relayer-key", other.privateKey], ["--owner-key", other.privateKey, "--relayer-key", other.privateKey]]) {
      const refused = await finished(["deploy", "--rpc-url", geth.url, "--key", key.privateKey, ...flags, "--state-dir", tmp("deploy")]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^relay: the .+ and the .+ would be the same key 0x\w{40} on a chain that is not a development node; give each role its own key, or pass --allow-shared-keys\n$/);
      expect(refused.stdout).toBe("");
    }
    expect(await nonce(key.address)).toBe(before);
  });

  it("with a key per role, warns that the mock tokens and feeds are public, and marks no devnet in the 0600 manifest", async () => {
    const stateDir = tmp("deploy");
    const [key, owner, relayer] = [devKeyPair(13), devKeyPair(14), devKeyPair(15)];
    const deployed = await finished([
      "deploy", "--rpc-url", geth.url, "--key", key.privateKey, "--owner-key", owner.privateKey, "--relayer-key", relayer.privateKey, "--state-dir", stateDir,
    ]);
    expect(deployed.code).toBe(0);
    expect(deployed.stderr).toMatch(/^relay: warning: chain 84532 is not a development node\. .*public `mint`.*public `setPrice`/m);
    const written = readManifest(manifestPath(stateDir));
    expect(written.devnet).toBeUndefined();
    expect(written.accounts.owner.address).toBe(owner.address);
    expect(written.accounts.relayer.address).toBe(relayer.address);
    expect(statSync(manifestPath(stateDir)).mode & 0o777).toBe(0o600);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
  }, 180_000);

  it("with --allow-shared-keys, one key is accepted (and still warned about the mocks)", async () => {
    const key = devKeyPair(16);
    const deployed = await finished(["deploy", "--rpc-url", geth.url, "--key", key.privateKey, "--allow-shared-keys", "--state-dir", tmp("deploy")]);
    expect(deployed.code).toBe(0);
    expect(deployed.stderr).toMatch(/warning: chain 84532 is not a development node/);
  }, 180_000);

  it("control: on the development node one key is fine, no warning, and the manifest is marked as a devnet", async () => {
    const stateDir = tmp("deploy");
    const deployed = await finished(["deploy", "--rpc-url", manifest.rpcUrl, "--key", devKeyPair(17).privateKey, "--state-dir", stateDir]);
    expect(deployed.code).toBe(0);
    expect(deployed.stderr).not.toMatch(/warning/);
    expect(readManifest(manifestPath(stateDir)).devnet).toBe(true);
  }, 180_000);
});
