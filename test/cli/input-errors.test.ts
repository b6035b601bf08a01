// What a newcomer's typing mistakes get back from `relay pay`: a --deadline out of range names the
// range, and an unknown token symbol or manifest name suggests the nearest known one. All of these are
// found before the chain or the relayer is contacted: nothing runs here, and exit 2 (usage) says so.
import { describe, expect, it } from "vitest";
import { didYouMean, editDistance, nearestNames } from "../../src/cli/did-you-mean.ts";
import { runMain } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const stateDir = tempDir("relay-input-");
const VAULT = "0x00000000000000000000000000000000000000bb";
const BOT_KEY = `0x${"ab".repeat(32)}`;
const PAYEE = "0x00000000000000000000000000000000000000aa";

/** `relay pay` with a vault and a bot key given, no manifest: only the flags under test vary. */
async function pay(...args: string[]) {
  const run = runMain(["pay", "--vault", VAULT, "--bot-key", BOT_KEY, "--state-dir", stateDir, ...args]);
  const code = await run.done;
  return { code, ...run.output };
}

describe("--deadline out of range", () => {
  it("0 is refused with the range that is allowed, not as 'not a whole number'", async () => {
    const result = await pay("--to", PAYEE, "--amount", "1", "--token", "USDC", "--deadline", "0");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `relay: --deadline is the intent's lifetime in seconds from now: a whole number from 1 up to the relayer's --max-deadline (86400 by default), got "0"\n`,
    );
  });

  it("negative, fractional and absurdly large values get the same line", async () => {
    for (const bad of ["-5", "1.5", "99999999999999999999"]) {
      const result = await pay("--to", PAYEE, "--amount", "1", "--token", "USDC", "--deadline", bad);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`relay: --deadline is the intent's lifetime in seconds from now: a whole number from 1 up to the relayer's --max-deadline (86400 by default), got "${bad}"\n`);
    }
  });
});

describe("unknown token symbols", () => {
  it("a swapped pair of letters: did you mean USDC?", async () => {
    const result = await pay("--to", PAYEE, "--amount", "1", "--token", "USCD");
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('relay: unknown token "USCD"; did you mean USDC?\n');
  });

  it("in any case, and every nearest symbol when two are as near", async () => {
    expect((await pay("--to", PAYEE, "--amount", "1", "--token", "uscd")).stderr).toBe('relay: unknown token "uscd"; did you mean USDC?\n');
    // Without a manifest the chain's canonical tokens are known (on 84532: USDC, WETH) and ETH.
    expect((await pay("--to", PAYEE, "--amount", "1", "--token", "wth")).stderr).toBe('relay: unknown token "wth"; did you mean WETH or ETH?\n');
    expect((await pay("--to", PAYEE, "--amount", "1", "--token", "EHT")).stderr).toBe('relay: unknown token "EHT"; did you mean ETH?\n');
  });

  it("nothing near: the list of known symbols, as before", async () => {
    const result = await pay("--to", PAYEE, "--amount", "1", "--token", "DOGE");
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('relay: unknown token "DOGE" on chain 84532 (known: USDC, WETH)\n');
  });

  it("a name given where an address goes is matched against the known names too", async () => {
    const result = await pay("--to", "usdc", "--amount", "1", "--token", "USDC", "--deadline", "0");
    // "usdc" is a token's address by symbol (resolveAddress), so --to passes and the deadline is what fails.
    expect(result.stderr).toMatch(/^relay: --deadline is/);
    const typo = await pay("--to", "wteh", "--amount", "1", "--token", "USDC");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('relay: --to "wteh" is not an address, a name in the devnet manifest or a token symbol; did you mean WETH?\n');
  });
});

describe("nearest names", () => {
  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("USCD", "USDC")).toBe(1);
    expect(editDistance("USDC", "USDC")).toBe(0);
    expect(editDistance("", "DAI")).toBe(3);
    expect(editDistance("WETH", "WBTC")).toBe(2);
  });

  it("suggests only near misses: about one edit per three letters typed", () => {
    expect(nearestNames("usdc", ["USDC", "USDT"])).toEqual(["USDC"]);
    expect(nearestNames("ownr", ["owner", "vault"])).toEqual(["owner"]);
    expect(nearestNames("bank", ["DAI", "lending", "nft"])).toEqual([]);
    expect(nearestNames("", ["USDC"])).toEqual([]);
    expect(didYouMean("DOGE", ["USDC", "DAI"])).toBe("");
    expect(didYouMean("WTH", ["WETH", "ETH", "WBTC"])).toBe("; did you mean WETH or ETH?");
  });
});
