// The terms commands end to end against `relay serve --terms-version 2026-11` (devnet and relayer
// in-process): the owner's vault is refused until `relay terms accept` signs the terms with the
// owner key, after which `relay pay` is approved and the recipient paid.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, type Address } from "viem";
import { clientsFor } from "../../src/chain/clients.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { runMain, type InProcessRun } from "../helpers/cli.ts";

const stateDir = mkdtempSync(path.join(tmpdir(), "relay-cli-terms-"));
const RECIPIENT = "0x00000000000000000000000000000000000000cd" as Address;
let serve: InProcessRun;
let manifest: Manifest;

async function relay(args: string[]) {
  const run = runMain([...args, "--state-dir", stateDir]);
  const code = await run.done;
  return { code, stdout: run.output.stdout, stderr: run.output.stderr };
}

beforeAll(async () => {
  serve = runMain(["serve", "--port", "0", "--rpc-port", "0", "--state-dir", stateDir, "--terms-version", "2026-11", "--terms-url", "https://relay.example/terms"]);
  await serve.waitFor(/relay: ready/);
  manifest = JSON.parse(readFileSync(path.join(stateDir, "devnet.json"), "utf8")) as Manifest;
});
afterAll(async () => {
  serve?.stop();
  await serve?.done;
});

const usdcBalance = (holder: Address) =>
  clientsFor(manifest.rpcUrl, manifest.chainId).publicClient.readContract({
    address: manifest.tokens.USDC!.address as Address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [holder],
  });

describe("relay terms", () => {
  it("status, a refused payment, accept, then the payment is approved", async () => {
    const before = await relay(["terms", "status", "--json"]);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ wallet: manifest.accounts.owner.address, required: true, version: "2026-11", accepted: false });

    const refused = await relay(["pay", "--to", RECIPIENT, "--amount", "1", "--token", "USDC"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("TERMS_NOT_ACCEPTED");
    expect(await usdcBalance(RECIPIENT)).toBe(0n);

    const accepted = await relay(["terms", "accept"]);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/^accepted +yes$/m);
    expect(accepted.stdout).toMatch(/^accepted version +2026-11$/m);

    const paid = await relay(["pay", "--to", RECIPIENT, "--amount", "1", "--token", "USDC", "--json"]);
    expect(paid.code).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ status: "approved" });
    expect(await usdcBalance(RECIPIENT)).toBe(1_000_000n);
  });
});
