// "The daily limit resets tomorrow", back to back: a fresh bot with a $10 daily limit pays 6, is
// refused a second 6, the devnet moves 24 h, and the same 6 is approved, `loops` times in a row. Back to
// back, a spend and the move often fall in one second and the payment after the move in the next: a
// relayer that learnt the move only from the latest block's timestamp saw the chain a second short of
// a day past that spend and refused the payment. The chain is read to see what moved.
import type { Address } from "viem";
import { expect } from "vitest";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";

export interface DayLoops {
  /** Runs `relay <argv>` with `env` added to the environment; its exit code and output. */
  relay(env: Record<string, string>, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  usdcOf(holder: Address): Promise<bigint>;
  vault: Address;
  loops: number;
}

export async function payAdvancePay({ relay, usdcOf, vault, loops }: DayLoops): Promise<void> {
  for (let loop = 0; loop < loops; loop++) {
    const botKey = generatePrivateKey();
    const payee = privateKeyToAddress(generatePrivateKey());
    expect((await relay({}, "owner", "bot", "add", privateKeyToAddress(botKey), "--daily-limit", "10")).code, `loop ${loop}`).toBe(0);
    const pay = () => relay({ RELAY_BOT_KEY: botKey }, "pay", "--to", payee, "--amount", "6", "--token", "USDC", "--json");

    const first = await pay();
    expect(first.code, `loop ${loop}: ${first.stderr}`).toBe(0);
    const vaultBefore = await usdcOf(vault);
    const refused = await pay();
    expect(refused.code, `loop ${loop}`).toBe(3);
    expect(refused.stderr).toMatch(/EXCEEDS_DAILY_LIMIT/);
    expect(await usdcOf(vault)).toBe(vaultBefore); // the refused payment moved nothing
    expect((await relay({}, "time", "advance", "24h")).code, `loop ${loop}`).toBe(0);
    const again = await pay();
    expect(again.stderr, `loop ${loop}`).toBe("");
    expect(again.code, `loop ${loop}`).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "approved" });
    expect(await usdcOf(payee), `loop ${loop}`).toBe(12_000_000n);
    expect(await usdcOf(vault)).toBe(vaultBefore - 6_000_000n);
  }
}
