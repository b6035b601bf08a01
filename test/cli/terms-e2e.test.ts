// The terms commands end to end against `relay serve --terms-version 2026-11` (devnet and relayer
// in-process): the owner's vault is refused until `relay terms accept` signs the terms with the
// owner key, after which `relay pay` is approved and the recipient paid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { startLiveRelay, type LiveRelay } from "./support/live.ts";

const RECIPIENT = "0x00000000000000000000000000000000000000cd" as Address;

let live: LiveRelay;
const relay = (args: string[]) => live.relay(args);
const usdcBalance = (holder: Address) => live.balanceOf("USDC", holder);

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-terms-", ["--terms-version", "2026-11", "--terms-url", "https://relay.example/terms"]);
});
afterAll(() => live?.stop());

describe("relay terms", () => {
  it("status, a refused payment, accept, then the payment is approved", async () => {
    const before = await relay(["terms", "status", "--json"]);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ wallet: live.manifest.accounts.owner.address, required: true, version: "2026-11", accepted: false });

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
