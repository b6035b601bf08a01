// Settings resolution (flags > env > manifest > defaults), token lookup and amount parsing.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CliError, EXIT } from "../../src/cli/io.ts";
import {
  DEFAULTS,
  parseAmount,
  requireBotKey,
  requireOwnerKey,
  requireVault,
  resolveSettings,
  resolveToken,
} from "../../src/cli/settings.ts";
import { chainManifestPath, writeManifest } from "../../src/devnet/manifest.ts";
import { sampleManifest, writeSampleManifest } from "./support/manifest.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const emptyDir = () => tempDir("relay-settings-");

function usageError(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.USAGE);
    expect((error as CliError).message).not.toContain("\n");
    return error as CliError;
  }
  throw new Error("expected a usage error");
}

describe("resolveSettings", () => {
  it("falls back to defaults without a manifest, and names how to provide what is missing", () => {
    const cwd = emptyDir();
    const settings = resolveSettings({}, {}, cwd);
    expect(settings).toMatchObject({ ...DEFAULTS, vault: undefined, botKey: undefined, manifest: undefined, stateDir: path.join(cwd, ".relay") });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(usageError(() => requireVault(settings)).message).toMatch(/no vault address: pass --vault, set RELAY_VAULT/);
    expect(usageError(() => requireBotKey(settings)).message).toMatch(/--bot-key.*RELAY_BOT_KEY/);
    expect(usageError(() => requireOwnerKey(settings)).message).toMatch(/--owner-key.*RELAY_OWNER_KEY/);
    // Without a manifest, the network's canonical tokens are known.
    expect(settings.tokens.USDC).toEqual({ address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 });
  });

  it("takes everything a devnet command needs from the manifest, with the default bot's key", () => {
    const cwd = emptyDir();
    const manifest = writeSampleManifest(path.join(cwd, ".relay"));
    const settings = resolveSettings({}, {}, cwd);
    expect(settings).toMatchObject({
      relayerUrl: manifest.relayerUrl,
      rpcUrl: manifest.rpcUrl,
      chainId: manifest.chainId,
      vault: manifest.contracts.vault,
      botKey: manifest.accounts.bots.default.privateKey,
      ownerKey: manifest.accounts.owner.privateKey,
    });
    expect(settings.sources.vault).toBe("manifest");
    expect(settings.tokens.DAI).toEqual(manifest.tokens.DAI);
  });

  it("lets the environment beat the manifest and flags beat the environment", () => {
    const cwd = emptyDir();
    writeSampleManifest(path.join(cwd, ".relay"));
    const env = {
      RELAY_URL: "http://127.0.0.1:9000/",
      RELAY_VAULT: "0x" + "11".repeat(20),
      RELAY_BOT_KEY: "22".repeat(32),
      RELAY_CHAIN_ID: "8453",
    };
    const fromEnv = resolveSettings({}, env, cwd);
    expect(fromEnv.relayerUrl).toBe("http://127.0.0.1:9000");
    expect(fromEnv.vault).toBe("0x1111111111111111111111111111111111111111");
    expect(fromEnv.botKey).toBe(`0x${"22".repeat(32)}`);
    expect(fromEnv.chainId).toBe(8453);
    expect(fromEnv.sources).toMatchObject({ relayerUrl: "env", vault: "env", rpcUrl: "manifest" });
    // The manifest is for another chain: its tokens do not apply, Base's canonical ones do.
    expect(fromEnv.tokens.USDC?.address).toBe("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");

    const fromFlags = resolveSettings({ relayerUrl: "http://127.0.0.1:9001", chainId: 84532, vault: "0x" + "33".repeat(20) }, env, cwd);
    expect(fromFlags).toMatchObject({ relayerUrl: "http://127.0.0.1:9001", chainId: 84532, vault: "0x3333333333333333333333333333333333333333" });
    expect(fromFlags.sources.vault).toBe("flag");
  });

  it("reads the manifest of --state-dir relative to the working directory", () => {
    const cwd = emptyDir();
    const manifest = writeSampleManifest(path.join(cwd, "elsewhere"));
    expect(resolveSettings({}, {}, cwd).manifest).toBeUndefined();
    expect(resolveSettings({ stateDir: "elsewhere" }, {}, cwd).vault).toBe(manifest.contracts.vault);
  });

  it("takes a second devnet chain's settings from devnet-<chainId>.json when --chain-id or RELAY_CHAIN_ID names it", () => {
    const cwd = emptyDir();
    const stateDir = path.join(cwd, ".relay");
    const first = writeSampleManifest(stateDir);
    const arbitrumUsdc = "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d";
    const second = {
      ...sampleManifest(),
      chainId: 421614,
      rpcUrl: "http://127.0.0.1:18546",
      domain: { ...first.domain, chainId: 421614 },
      tokens: { ...first.tokens, USDC: { address: arbitrumUsdc, decimals: 6 } },
    };
    writeManifest(chainManifestPath(stateDir, 84532), first);
    writeManifest(chainManifestPath(stateDir, 421614), second);

    for (const settings of [resolveSettings({ chainId: "421614" }, {}, cwd), resolveSettings({}, { RELAY_CHAIN_ID: "421614" }, cwd)]) {
      expect(settings).toMatchObject({ chainId: 421614, rpcUrl: second.rpcUrl, relayerUrl: second.relayerUrl, manifest: second });
      expect(settings.sources.rpcUrl).toBe("manifest");
      expect(settings.tokens.USDC!.address).toBe(arbitrumUsdc);
    }
    // Without a chain id, or naming the first chain, devnet.json is the manifest as before.
    expect(resolveSettings({}, {}, cwd)).toMatchObject({ chainId: 84532, rpcUrl: first.rpcUrl, manifest: first });
    expect(resolveSettings({ chainId: 84532 }, {}, cwd).manifest).toEqual(first);
    // A chain the state directory has no manifest for keeps devnet.json, with that chain's canonical tokens.
    const other = resolveSettings({ chainId: "42161" }, {}, cwd);
    expect(other).toMatchObject({ chainId: 42161, manifest: first });
    expect(other.tokens.USDC!.address).toBe("0xaf88d065e77c8cC2239327C5EDb3A432268e5831");
  });

  it("refuses bad values with one line naming their source", () => {
    const cwd = emptyDir();
    expect(usageError(() => resolveSettings({}, { RELAY_CHAIN_ID: "1" }, cwd)).message).toMatch(/^RELAY_CHAIN_ID 1 is not a supported chain id/);
    expect(usageError(() => resolveSettings({ vault: "0x1234" }, {}, cwd)).message).toMatch(/^--vault must be a 0x-prefixed 20-byte address/);
    expect(usageError(() => resolveSettings({}, { RELAY_URL: "ftp://x" }, cwd)).message).toMatch(/^RELAY_URL must be an http\(s\) URL/);
    expect(usageError(() => resolveSettings({ ownerKey: "0x12" }, {}, cwd)).message).toMatch(/^--owner-key must be a 32-byte hex private key/);
    expect(usageError(() => resolveSettings({ vault: "0x036cbd53842C5426634e7929541eC2318f3dCF7e" }, {}, cwd)).message).toMatch(/checksum/);
  });

  it("reports a broken manifest as a failure naming the file", () => {
    const cwd = emptyDir();
    mkdirSync(path.join(cwd, ".relay"));
    writeFileSync(path.join(cwd, ".relay", "devnet.json"), "{ nope");
    expect(() => resolveSettings({}, {}, cwd)).toThrow(/devnet\.json: not valid JSON/);
  });
});

describe("resolveToken and parseAmount", () => {
  const cwd = emptyDir();
  const manifest = writeSampleManifest(path.join(cwd, ".relay"));
  const settings = resolveSettings({}, {}, cwd);

  it("finds tokens by symbol in any case, and by address with their decimals", () => {
    expect(resolveToken(settings, "usdc")).toEqual({ address: manifest.tokens.USDC!.address, symbol: "USDC", decimals: 6 });
    expect(resolveToken(settings, manifest.tokens.WBTC!.address.toLowerCase())).toEqual({
      address: manifest.tokens.WBTC!.address,
      symbol: "WBTC",
      decimals: 8,
    });
    const unknown = "0x" + "ab".repeat(20);
    expect(resolveToken(settings, unknown)).toMatchObject({ symbol: undefined, decimals: undefined });
  });

  it("ETH is native ETH under the 0xEeee… marker, 18 decimals; the marker and the zero address as addresses are ETH too", () => {
    const marker = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
    const zero = "0x0000000000000000000000000000000000000000";
    expect(resolveToken(settings, "eth")).toEqual({ address: marker, symbol: "ETH", decimals: 18 });
    expect(resolveToken(settings, marker.toLowerCase())).toEqual({ address: marker, symbol: "ETH", decimals: 18 });
    expect(resolveToken(settings, zero)).toEqual({ address: zero, symbol: "ETH", decimals: 18 });
    expect(parseAmount(settings, resolveToken(settings, "ETH"), "0.5")).toBe(5n * 10n ** 17n);
  });

  it("refuses an unknown symbol, listing the known ones", () => {
    expect(usageError(() => resolveToken(settings, "DOGE")).message).toMatch(/unknown token "DOGE" on chain 84532 \(known: USDC, USDT, DAI, WETH, WBTC\)/);
  });

  it("converts human amounts with the token's decimals and refuses extra decimal places", () => {
    const usdc = resolveToken(settings, "USDC");
    expect(parseAmount(settings, usdc, "5")).toBe(5_000_000n);
    expect(parseAmount(settings, usdc, "0.25")).toBe(250_000n);
    expect(parseAmount(settings, resolveToken(settings, "DAI"), "1.5")).toBe(1_500_000_000_000_000_000n);
    expect(usageError(() => parseAmount(settings, usdc, "0.1234567")).message).toBe(
      'amount "0.1234567" has more than 6 decimal places (USDC has 6 decimals)',
    );
    expect(usageError(() => parseAmount(settings, usdc, "-1")).message).toMatch(/not a plain decimal number/);
  });

  it("takes base units as they are with baseUnits, and requires them for a token of unknown decimals", () => {
    const usdc = resolveToken(settings, "USDC");
    expect(parseAmount(settings, usdc, "250000", { baseUnits: true })).toBe(250_000n);
    expect(usageError(() => parseAmount(settings, usdc, "2.5", { baseUnits: true })).message).toMatch(/not a whole number of base units/);
    const unknown = resolveToken(settings, "0x" + "ab".repeat(20));
    expect(usageError(() => parseAmount(settings, unknown, "1")).message).toMatch(/--base-units/);
    expect(parseAmount(settings, unknown, "1", { baseUnits: true })).toBe(1n);
  });
});
