// `relay pay … --swap-from WETH --swap-max 0.01` end to end against `relay serve`: the bot signs the
// payment and the swap that pays it; both run in one transaction. The flags go together.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { startLiveRelay, type LiveRelay } from "./support/live.ts";

let live: LiveRelay;
let vault: Address;

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-pay-swap-");
  vault = live.manifest.contracts.vault as Address;
});
afterAll(() => live?.stop());

describe("relay pay --swap-from --swap-max", () => {
  it("pays 12 USDC by swapping at most 0.01 WETH, in one transaction; exit 0", async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const wethBefore = await live.balanceOf("WETH", vault);
    const sent = await live.relay(["pay", "--to", to, "--amount", "12", "--token", "USDC", "--swap-from", "WETH", "--swap-max", "0.01", "--json"]);
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    const result = JSON.parse(sent.stdout) as { status: string; txHash: string };
    expect(result).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await live.balanceOf("USDC", to)).toBe(12_000_000n);
    const spent = wethBefore - (await live.balanceOf("WETH", vault));
    expect(spent).toBeGreaterThan(0n);
    expect(spent).toBeLessThanOrEqual(10n ** 16n);
  });

  it("--swap-from without --swap-max is a usage error before anything is signed, exit 2", async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const res = await live.relay(["pay", "--to", to, "--amount", "1", "--token", "USDC", "--swap-from", "WETH"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--swap-from and --swap-max go together");
    expect(await live.balanceOf("USDC", to)).toBe(0n);
  });
});
