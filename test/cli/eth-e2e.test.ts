// `relay pay --token ETH` and `relay vault value` end to end against `relay serve`: the bot pays
// native ETH (the 0xEeee… marker, 18 decimals), the recipient's ETH rises by exactly the amount, and
// the vault's value lists its ETH.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Address } from "viem";
import { ETH_MARKER } from "../../src/chain/eth.ts";
import { startLiveRelay, type LiveRelay } from "./support/live.ts";

let live: LiveRelay;
let vault: Address;
const RECIPIENT = "0x00000000000000000000000000000000000000e7" as Address;
const eth = (who: Address) => live.clients.publicClient.getBalance({ address: who });

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-eth-");
  vault = live.manifest.contracts.vault as Address;
});
afterAll(() => live?.stop());

describe("native ETH from the CLI", () => {
  it("relay pay --token ETH --amount 0.5: approved, exit 0, the recipient receives exactly 0.5 ETH", async () => {
    const [toBefore, vaultBefore] = [await eth(RECIPIENT), await eth(vault)];
    const sent = await live.relay(["pay", "--to", RECIPIENT, "--token", "ETH", "--amount", "0.5", "--json"]);
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    const result = JSON.parse(sent.stdout) as { status: string; txHash: `0x${string}` };
    expect(result).toMatchObject({ status: "approved", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await eth(RECIPIENT)).toBe(toBefore + parseEther("0.5"));
    expect(await eth(vault)).toBe(vaultBefore - parseEther("0.5"));
  });

  it("relay vault value lists ETH (text and JSON); relay vault balance ETH reads it", async () => {
    const held = await eth(vault);
    const text = await live.relay(["vault", "value"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ETH +9\.5 \(\$28500\.00 at \$3000\)$/m);
    const json = JSON.parse((await live.relay(["vault", "value", "--json"])).stdout) as { tokens: Array<Record<string, unknown>> };
    expect(json.tokens.find((t) => t.symbol === "ETH")).toMatchObject({ token: ETH_MARKER, balance: held.toString(), decimals: 18, priceUsd: 3000 });
    expect(await live.relay(["vault", "balance", "ETH"])).toMatchObject({ code: 0, stdout: "9.5 ETH\n" });
  });
});
