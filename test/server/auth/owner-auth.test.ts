// OwnerAuth: nonces, SIWE login (every reason a login is refused), stateless session tokens and
// the Authorization header. Time comes from a fake clock.
import { beforeEach, describe, expect, it } from "vitest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { isRelayError } from "../../../src/errors.ts";
import { OwnerAuth, type OwnerAuthOptions } from "../../../src/server/auth/owner-auth.ts";
import { buildSiweMessage, type SiweMessageFields } from "../../../packages/client/src/siwe-message.ts";

// Hardhat's first two development keys.
const owner = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const stranger = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");

const DOMAIN = "127.0.0.1:8787";
const URI = "http://127.0.0.1:8787";
const START = Date.UTC(2026, 0, 1, 12);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let clock = START;
beforeEach(() => {
  clock = START;
});

function makeAuth(options: Partial<OwnerAuthOptions> = {}): OwnerAuth {
  return new OwnerAuth({ secret: new Uint8Array(32).fill(7), domain: DOMAIN, uri: URI, chainIds: [31337, 84532], now: () => clock, ...options });
}

interface Attempt {
  message: string;
  signature: string;
}

/** A SIWE message for a fresh nonce of `auth`, signed by `signer` (the owner unless told). */
async function attempt(auth: OwnerAuth, change: Partial<SiweMessageFields> = {}, signer: PrivateKeyAccount = owner): Promise<Attempt> {
  const message = buildSiweMessage({
    domain: DOMAIN,
    address: owner.address,
    uri: URI,
    chainId: 31337,
    nonce: auth.issueNonce().nonce,
    issuedAt: new Date(clock),
    ...change,
  });
  return { message, signature: await signer.signMessage({ message }) };
}

/** Runs `action` and returns the details of the 401 UNAUTHORIZED it must throw. */
async function refusal(action: () => unknown): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (!isRelayError(error)) throw error;
    expect(error.code).toBe("UNAUTHORIZED");
    expect(error.status).toBe(401);
    return error.details ?? "";
  }
  throw new Error("expected a 401 UNAUTHORIZED, but the call succeeded");
}

describe("issueNonce", () => {
  it("hands out distinct 80-hex-digit nonces that expire after 5 minutes", () => {
    const auth = makeAuth();
    const first = auth.issueNonce();
    const second = auth.issueNonce();
    expect(first.nonce).toMatch(/^[0-9a-f]{80}$/);
    expect(second.nonce).not.toBe(first.nonce);
    expect(first.expiresAt).toBe(new Date(START + 5 * MINUTE).toISOString());
  });

  it("honours nonceTtlMs", () => {
    expect(makeAuth({ nonceTtlMs: 1000 }).issueNonce().expiresAt).toBe(new Date(START + 1000).toISOString());
  });
});

describe("login", () => {
  it("accepts a correctly signed message and returns a one-hour session for its address", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { statement: "Sign in to review held requests." });
    const session = await auth.login(message, signature);
    expect(session.address).toBe(owner.address);
    expect(session.expiresAt).toBe(new Date(START + HOUR).toISOString());
    expect(auth.authenticate(`Bearer ${session.token}`)).toBe(owner.address);
  });

  it("ends the session at the message's Expiration Time when that is sooner", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { expirationTime: new Date(START + 10 * MINUTE) });
    const session = await auth.login(message, signature);
    expect(session.expiresAt).toBe(new Date(START + 10 * MINUTE).toISOString());
    clock = START + 10 * MINUTE - 1;
    expect(auth.authenticate(`Bearer ${session.token}`)).toBe(owner.address);
    clock = START + 10 * MINUTE;
    expect(await refusal(() => auth.authenticate(`Bearer ${session.token}`))).toMatch(/session has expired/);
  });

  it("honours sessionTtlMs", async () => {
    const auth = makeAuth({ sessionTtlMs: 5 * MINUTE });
    const { message, signature } = await attempt(auth);
    expect((await auth.login(message, signature)).expiresAt).toBe(new Date(START + 5 * MINUTE).toISOString());
  });

  it("accepts every served chain", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { chainId: 84532 });
    expect((await auth.login(message, signature)).address).toBe(owner.address);
  });

  it("refuses text that is not a SIWE message, naming the line", async () => {
    expect(await refusal(() => makeAuth().login("hello", "0x"))).toMatch(/invalid SIWE message, line 1/);
  });

  it("refuses another domain", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { domain: "evil.example" });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/domain "evil.example" is not this relayer's \("127.0.0.1:8787"\)/);
  });

  it("refuses another URI", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { uri: "http://127.0.0.1:8787/other" });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/URI is not this relayer's base URL/);
  });

  it("refuses a chain that is not served", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { chainId: 1 });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/chain ID 1 is not served \(served: 31337, 84532\)/);
  });

  it("refuses a nonce this relayer never issued", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { nonce: "abcdefgh12345678" });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/nonce was not issued by this relayer/);
  });

  it("refuses a nonce issued by another relayer process", async () => {
    const { message, signature } = await attempt(makeAuth());
    expect(await refusal(() => makeAuth().login(message, signature))).toMatch(/nonce was not issued by this relayer/);
  });

  it("refuses a replayed login", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth);
    await auth.login(message, signature);
    expect(await refusal(() => auth.login(message, signature))).toMatch(/already used/);
  });

  it("spends the nonce on a failed login too, so a corrected message needs a new nonce", async () => {
    const auth = makeAuth();
    const bad = await attempt(auth, { domain: "evil.example" });
    await refusal(() => auth.login(bad.message, bad.signature));
    const nonce = bad.message.match(/Nonce: (\w+)/)![1]!;
    const retry = await attempt(auth, { nonce });
    expect(await refusal(() => auth.login(retry.message, retry.signature))).toMatch(/already used/);
  });

  it("refuses an expired nonce", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { issuedAt: new Date(START + 5 * MINUTE) });
    clock = START + 5 * MINUTE;
    expect(await refusal(() => auth.login(message, signature))).toMatch(/nonce has expired/);
  });

  it("accepts a nonce just before it expires", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth);
    clock = START + 5 * MINUTE - 1;
    expect((await auth.login(message, signature)).address).toBe(owner.address);
  });

  it("keeps the oldest outstanding nonce valid however many are issued after it (nonces take no room until used)", async () => {
    const auth = makeAuth({ maxSpentNonces: 2 });
    const oldest = await attempt(auth);
    for (let i = 0; i < 10_001; i++) auth.issueNonce();
    expect((await auth.login(oldest.message, oldest.signature)).address).toBe(owner.address);
    expect(await refusal(() => auth.login(oldest.message, oldest.signature))).toMatch(/already used/);
  });

  it("refuses a nonce whose MAC or expiry was altered", async () => {
    const auth = makeAuth();
    const { nonce } = auth.issueNonce();
    // Move the expiry a day later, keeping the MAC: the MAC no longer matches.
    const later = (BigInt(`0x${nonce.slice(0, 16)}`) + 86_400_000n).toString(16).padStart(16, "0") + nonce.slice(16);
    const flipped = nonce.slice(0, -1) + (nonce.endsWith("0") ? "1" : "0");
    for (const forged of [later, flipped]) {
      const { message, signature } = await attempt(auth, { nonce: forged });
      expect(await refusal(() => auth.login(message, signature))).toMatch(/nonce was not issued by this relayer/);
    }
  });

  it("when the memory of spent nonces is full, refuses logins with 429 until the oldest expire, and never accepts a replay", async () => {
    const auth = makeAuth({ maxSpentNonces: 2 });
    const first = await attempt(auth);
    clock += MINUTE;
    const second = await attempt(auth);
    const third = await attempt(auth);
    await auth.login(first.message, first.signature);
    await auth.login(second.message, second.signature);
    let full: unknown;
    try {
      await auth.login(third.message, third.signature);
    } catch (error) {
      full = error;
    }
    // The first spent nonce expires 4 minutes from now: that is when there is room again.
    expect(full).toMatchObject({ code: "RATE_LIMITED", status: 429, retryAfterSeconds: 240 });
    // Both spent nonces are still remembered: a replay is refused as used, not forgotten.
    expect(await refusal(() => auth.login(first.message, first.signature))).toMatch(/already used/);
    expect(await refusal(() => auth.login(second.message, second.signature))).toMatch(/already used/);
    clock = START + 5 * MINUTE; // the first nonce expired: its slot is free
    const fresh = await attempt(auth);
    expect((await auth.login(fresh.message, fresh.signature)).address).toBe(owner.address);
    expect(await refusal(() => auth.login(second.message, second.signature))).toMatch(/already used/);
    expect(await refusal(() => auth.login(first.message, first.signature))).toMatch(/expired/);
  });

  it("refuses an Issued At more than 60 s in the future, and accepts exactly 60 s", async () => {
    const auth = makeAuth();
    const late = await attempt(auth, { issuedAt: new Date(START + 60_001) });
    expect(await refusal(() => auth.login(late.message, late.signature))).toMatch(/Issued At .* is more than 60 s in the future/);
    const skewed = await attempt(auth, { issuedAt: new Date(START + 60_000) });
    expect((await auth.login(skewed.message, skewed.signature)).address).toBe(owner.address);
  });

  it("refuses a message past its Expiration Time", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { issuedAt: new Date(START - HOUR), expirationTime: new Date(START) });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/message expired at 2026-01-01T12:00:00.000Z/);
  });

  it("refuses a message before its Not Before, and accepts it once that time has come", async () => {
    const auth = makeAuth();
    const early = await attempt(auth, { notBefore: new Date(START + 1) });
    expect(await refusal(() => auth.login(early.message, early.signature))).toMatch(/not valid before/);
    const due = await attempt(auth, { notBefore: new Date(START) });
    expect((await auth.login(due.message, due.signature)).address).toBe(owner.address);
  });

  it("refuses a signature by another key", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, {}, stranger);
    expect(await refusal(() => auth.login(message, signature))).toMatch(/signature was not made by the message's address/);
  });

  it("refuses the owner's signature over a different message", async () => {
    const auth = makeAuth();
    const { message } = await attempt(auth);
    const signature = await owner.signMessage({ message: `${message} ` });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/not made by the message's address/);
  });

  it("refuses a message naming the stranger but signed by the owner", async () => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth, { address: stranger.address });
    expect(await refusal(() => auth.login(message, signature))).toMatch(/not made by the message's address/);
  });

  it.each<[string, (signature: string) => string, RegExp]>([
    ["not hex", () => "hello", /bad signature: signature must be 0x-prefixed hex/],
    ["64 bytes", (s) => s.slice(0, 130), /bad signature: signature must be 65 bytes/],
    ["v of 0", (s) => `${s.slice(0, 130)}00`, /bad signature: signature v must be 27 or 28/],
    ["zero r", (s) => `0x${"00".repeat(32)}${s.slice(66)}`, /bad signature: signature r is zero/],
    ["high s", (s) => `${s.slice(0, 66)}${"ff".repeat(32)}${s.slice(130)}`, /bad signature: high-s signature/],
  ])("refuses a malformed signature: %s", async (_name, mangle, reason) => {
    const auth = makeAuth();
    const { message, signature } = await attempt(auth);
    expect(await refusal(() => auth.login(message, mangle(signature)))).toMatch(reason);
  });
});

describe("authenticate", () => {
  async function signedIn(auth: OwnerAuth): Promise<string> {
    const { message, signature } = await attempt(auth);
    return (await auth.login(message, signature)).token;
  }

  it("accepts the bearer scheme in any case and surrounding spaces", async () => {
    const auth = makeAuth();
    const token = await signedIn(auth);
    expect(auth.authenticate(`bearer ${token}`)).toBe(owner.address);
    expect(auth.authenticate(`  BEARER   ${token} `)).toBe(owner.address);
  });

  it.each<[string, string | undefined, RegExp]>([
    ["no header", undefined, /missing Authorization header/],
    ["an empty header", "", /missing Authorization header/],
    ["another scheme", "Basic dXNlcjpwYXNz", /must be "Bearer <token>"/],
    ["Bearer without a token", "Bearer", /must be "Bearer <token>"/],
    ["two tokens", "Bearer a b", /must be "Bearer <token>"/],
    ["garbage", "Bearer garbage", /session token is malformed/],
    ["three parts", "Bearer a.b.c", /session token is malformed/],
    ["non-base64url characters", `Bearer ${"+".repeat(38)}.${"/".repeat(43)}`, /session token is malformed/],
  ])("refuses %s", async (_name, header, reason) => {
    expect(await refusal(() => makeAuth().authenticate(header))).toMatch(reason);
  });

  it("refuses a token whose address or expiry was changed", async () => {
    const auth = makeAuth();
    const token = await signedIn(auth);
    const [body, mac] = token.split(".") as [string, string];
    const bytes = Buffer.from(body, "base64url");
    const otherAddress = Buffer.from(bytes);
    otherAddress.write(stranger.address.slice(2), 0, 20, "hex");
    const later = Buffer.from(bytes);
    later.writeBigUInt64BE(BigInt(START + 365 * 24 * HOUR), 20);
    for (const forged of [otherAddress, later]) {
      expect(await refusal(() => auth.authenticate(`Bearer ${forged.toString("base64url")}.${mac}`))).toMatch(/not valid for this relayer/);
    }
    const flipped = Buffer.from(mac, "base64url");
    flipped[0]! ^= 1;
    expect(await refusal(() => auth.authenticate(`Bearer ${body}.${flipped.toString("base64url")}`))).toMatch(/not valid for this relayer/);
  });

  it("refuses a token made under another secret", async () => {
    const token = await signedIn(makeAuth({ secret: new Uint8Array(32).fill(9) }));
    expect(await refusal(() => makeAuth().authenticate(`Bearer ${token}`))).toMatch(/not valid for this relayer/);
  });

  it("refuses a token once its session has expired", async () => {
    const auth = makeAuth();
    const token = await signedIn(auth);
    clock = START + HOUR - 1;
    expect(auth.authenticate(`Bearer ${token}`)).toBe(owner.address);
    clock = START + HOUR;
    expect(await refusal(() => auth.authenticate(`Bearer ${token}`))).toMatch(/session has expired; sign in again/);
  });
});

describe("construction", () => {
  it("refuses a short secret and an empty chain list", () => {
    expect(() => makeAuth({ secret: new Uint8Array(16) })).toThrow(/at least 32 bytes/);
    expect(() => makeAuth({ chainIds: [] })).toThrow(/at least one chain id/);
  });
});
