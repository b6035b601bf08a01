// EIP-4361 message text: the exact layout written, the round trip, agreement with viem's SIWE
// writer (an independent implementation), and one parse error per line and field.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSiweMessage } from "viem/siwe";
import { buildSiweMessage, parseSiweMessage, siweTarget, type SiweMessage, type SiweMessageFields } from "../../packages/client/src/siwe-message.ts";

const ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const minimal: SiweMessageFields = {
  domain: "127.0.0.1:8787",
  address: ADDRESS,
  uri: "http://127.0.0.1:8787",
  chainId: 31337,
  nonce: "abcdef1234567890",
  issuedAt: "2026-01-01T00:00:00Z",
};

const full: SiweMessageFields = {
  ...minimal,
  scheme: "https",
  statement: "Sign in to review held requests: vault #1 (owner's view).",
  expirationTime: "2026-01-01T01:00:00.250+02:00",
  notBefore: "2025-12-31T23:00:00Z",
  requestId: "req-1:a@b",
  resources: ["ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/", "https://example.com/claim.json?x=1#top"],
};

const fullText = [
  "https://127.0.0.1:8787 wants you to sign in with your Ethereum account:",
  ADDRESS,
  "",
  "Sign in to review held requests: vault #1 (owner's view).",
  "",
  "URI: http://127.0.0.1:8787",
  "Version: 1",
  "Chain ID: 31337",
  "Nonce: abcdef1234567890",
  "Issued At: 2026-01-01T00:00:00Z",
  "Expiration Time: 2026-01-01T01:00:00.250+02:00",
  "Not Before: 2025-12-31T23:00:00Z",
  "Request ID: req-1:a@b",
  "Resources:",
  "- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
  "- https://example.com/claim.json?x=1#top",
].join("\n");

describe("buildSiweMessage", () => {
  it("writes every field in the EIP's layout", () => {
    expect(buildSiweMessage(full)).toBe(fullText);
  });

  it("without a statement, leaves two empty lines between the address and the URI", () => {
    expect(buildSiweMessage(minimal)).toBe(
      `127.0.0.1:8787 wants you to sign in with your Ethereum account:\n${ADDRESS}\n\n\nURI: http://127.0.0.1:8787\n` +
        "Version: 1\nChain ID: 31337\nNonce: abcdef1234567890\nIssued At: 2026-01-01T00:00:00Z",
    );
  });

  it("matches viem's SIWE writer on the same fields", () => {
    const fields = { ...full, scheme: undefined, issuedAt: new Date("2026-01-01T00:00:00Z"), expirationTime: new Date("2026-01-01T01:00:00Z"), notBefore: new Date("2025-12-31T23:00:00Z") };
    const ours = buildSiweMessage(fields);
    const viems = createSiweMessage({ ...fields, address: ADDRESS, version: "1" });
    expect(ours).toBe(viems);
  });

  it("writes Dates as ISO text, the address in EIP-55 case, an empty Request ID and an empty resource list", () => {
    const text = buildSiweMessage({ ...minimal, address: ADDRESS.toLowerCase(), issuedAt: new Date(Date.UTC(2026, 0, 2)), requestId: "", resources: [] });
    expect(text.split("\n")[1]).toBe(ADDRESS);
    expect(text).toContain("Issued At: 2026-01-02T00:00:00.000Z");
    expect(text.endsWith("\nRequest ID: \nResources:")).toBe(true);
  });

  it("takes an address in one case (no checksum to check) and writes its EIP-55 form", () => {
    for (const address of [ADDRESS.toLowerCase(), `0x${ADDRESS.slice(2).toUpperCase()}`, ADDRESS]) {
      expect(buildSiweMessage({ ...minimal, address }).split("\n")[1]).toBe(ADDRESS);
    }
  });

  it.each<[string, Partial<SiweMessageFields>, RegExp]>([
    ["domain", { domain: "bad domain" }, /domain must be an RFC 3986 authority/],
    ["scheme", { scheme: "1http" }, /scheme must be a URI scheme/],
    ["address format", { address: "0x1234" }, /address must be 0x followed by 40 hex digits/],
    ["address checksum", { address: ADDRESS.replace("C8", "c8") }, /address has a bad EIP-55 checksum/],
    ["statement line break", { statement: "two\nlines" }, /statement must not contain a line break/],
    ["statement characters", { statement: 'say "hi"' }, /statement may only hold/],
    ["empty statement", { statement: "" }, /statement must not be empty/],
    ["uri", { uri: "not a uri" }, /uri must be an RFC 3986 URI/],
    ["version", { version: "2" as "1" }, /version must be "1"/],
    ["chainId", { chainId: 1.5 }, /chainId must be a non-negative integer/],
    ["nonce", { nonce: "short" }, /nonce must be at least 8 letters or digits/],
    ["issuedAt", { issuedAt: "2026-02-30T00:00:00Z" }, /issuedAt must be an RFC 3339 date-time/],
    ["issuedAt Date", { issuedAt: new Date(Number.NaN) }, /issuedAt is an invalid Date/],
    ["expirationTime", { expirationTime: "tomorrow" }, /expirationTime must be an RFC 3339 date-time/],
    ["notBefore", { notBefore: "2026-01-01 00:00:00Z" }, /notBefore must be an RFC 3339 date-time/],
    ["requestId", { requestId: "a/b" }, /requestId may only hold RFC 3986 path characters/],
    ["resources", { resources: ["https://ok.example", "no scheme"] }, /resources\[1\] must be an RFC 3986 URI/],
  ])("refuses a bad %s", (_name, change, error) => {
    expect(() => buildSiweMessage({ ...minimal, ...change })).toThrow(error);
  });
});

describe("parseSiweMessage", () => {
  it("reads back every field exactly as written", () => {
    const expected: SiweMessage = { ...full, address: ADDRESS, version: "1" } as SiweMessage;
    expect(parseSiweMessage(fullText)).toEqual(expected);
  });

  it("reads a message without optional fields, with no optional keys present", () => {
    expect(parseSiweMessage(buildSiweMessage(minimal))).toEqual({ ...minimal, version: "1" });
  });

  it("reads the EIP's own example message", () => {
    const example = [
      "service.org wants you to sign in with your Ethereum account:",
      "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
      "",
      "I accept the ServiceOrg Terms of Service: https://service.org/tos",
      "",
      "URI: https://service.org/login",
      "Version: 1",
      "Chain ID: 1",
      "Nonce: 32891756",
      "Issued At: 2021-09-30T16:25:24Z",
      "Resources:",
      "- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
      "- https://example.com/my-web2-claim.json",
    ].join("\n");
    const parsed = parseSiweMessage(example);
    expect(parsed.domain).toBe("service.org");
    expect(parsed.statement).toBe("I accept the ServiceOrg Terms of Service: https://service.org/tos");
    expect(parsed.chainId).toBe(1);
    expect(parsed.resources).toHaveLength(2);
    expect(buildSiweMessage(parsed)).toBe(example);
  });

  /** `fullText` with line `n` (1-based) replaced, or removed when `line` is undefined. */
  function withLine(n: number, line: string | undefined): string {
    const lines = fullText.split("\n");
    if (line === undefined) lines.splice(n - 1, 1);
    else lines[n - 1] = line;
    return lines.join("\n");
  }

  it.each<[string, string, RegExp]>([
    ["header without the fixed text", withLine(1, "example.com wants you to sign in"), /line 1: expected "<domain> wants you to sign in/],
    ["bad scheme", withLine(1, "ht_tp://example.com wants you to sign in with your Ethereum account:"), /line 1: scheme must be a URI scheme/],
    ["bad domain", withLine(1, "https://exa mple.com wants you to sign in with your Ethereum account:"), /line 1: domain must be an RFC 3986 authority/],
    ["empty domain", withLine(1, " wants you to sign in with your Ethereum account:"), /line 1: domain must be/],
    ["short address", withLine(2, "0x70997970C51812dc3A010C7d01b50e0d17dc79"), /line 2: address must be 0x followed by 40 hex digits/],
    ["lowercase address", withLine(2, ADDRESS.toLowerCase()), /line 2: address must be in EIP-55 checksum case \(0x70997970C51812dc3A010C7d01b50e0d17dc79C8\)/],
    ["no empty line after the address", withLine(3, "oops"), /line 3: expected an empty line after the address/],
    ["statement with a bad character", withLine(4, "100% sure"), /line 4: statement may only hold/],
    ["no empty line after the statement", withLine(5, undefined), /line 5: expected an empty line after the statement, got "URI: /],
    ["missing URI line", withLine(6, "Version: 1"), /line 6: expected "URI: …", got "Version: 1"/],
    ["bad URI", withLine(6, "URI: example.com/login"), /line 6: URI must be an RFC 3986 URI/],
    ["URI with a bad percent escape", withLine(6, "URI: http://exa%zzmple/"), /line 6: URI must be an RFC 3986 URI/],
    ["URI with a bad authority", withLine(6, "URI: http://relay:80:80/"), /line 6: URI has an invalid authority/],
    ["wrong version", withLine(7, "Version: 2"), /line 7: Version must be "1", got "2"/],
    ["chain id not a number", withLine(8, "Chain ID: 0x1"), /line 8: Chain ID must be a decimal number/],
    ["chain id too large", withLine(8, "Chain ID: 99999999999999999999"), /line 8: Chain ID is too large/],
    ["short nonce", withLine(9, "Nonce: abc123"), /line 9: Nonce must be at least 8 letters or digits/],
    ["nonce with symbols", withLine(9, "Nonce: abcd-efgh-1234"), /line 9: Nonce must be at least 8 letters or digits/],
    ["bad Issued At", withLine(10, "Issued At: 2026-13-01T00:00:00Z"), /line 10: Issued At must be an RFC 3339 date-time/],
    ["Issued At without an offset", withLine(10, "Issued At: 2026-01-01T00:00:00"), /line 10: Issued At must be an RFC 3339 date-time/],
    ["bad Expiration Time", withLine(11, "Expiration Time: 2026-01-01T24:00:00Z"), /line 11: Expiration Time must be an RFC 3339 date-time/],
    ["bad Not Before", withLine(12, "Not Before: 1767225600"), /line 12: Not Before must be an RFC 3339 date-time/],
    ["bad Request ID", withLine(13, "Request ID: a b"), /line 13: Request ID may only hold RFC 3986 path characters/],
    ["resource line without a dash", withLine(15, "ipfs://bafy/"), /line 15: expected a resource line "- <uri>"/],
    ["bad resource URI", withLine(16, "- not a uri"), /line 16: resource must be an RFC 3986 URI/],
    ["optional fields out of order", withLine(11, "Not Before: 2025-12-31T23:00:00Z").replace("\nNot Before: 2025-12-31T23:00:00Z\nRequest", "\nExpiration Time: 2026-01-01T01:00:00Z\nRequest"), /line 12: unexpected line "Expiration Time: .*in that order/],
    ["unknown line", withLine(11, "Expires: soon"), /line 11: unexpected line "Expires: soon"/],
    ["truncated message", fullText.split("\n").slice(0, 8).join("\n"), /line 9: the message ends where "Nonce: …" was expected/],
    ["truncated after the address", fullText.split("\n").slice(0, 3).join("\n"), /line 4: the message ends where/],
    ["trailing newline", buildSiweMessage(minimal) + "\n", /line 10: unexpected line ""/],
    ["CRLF line endings", buildSiweMessage(minimal).replaceAll("\n", "\r\n"), /line 1: expected "<domain> wants you/],
    ["empty text", "", /line 1: expected "<domain> wants you/],
  ])("refuses %s", (_name, text, error) => {
    expect(() => parseSiweMessage(text)).toThrow(error);
  });

  it("builds then parses to the same fields, and parses then builds to the same text (property)", () => {
    const alnum = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split(""));
    const statementChar = fc.constantFrom(..."abcXYZ019 -._~:/?#[]@!$&'()*+,;=".split(""));
    const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms).toISOString());
    const fields = fc.record(
      {
        scheme: fc.constantFrom("https", "http", "web+app"),
        domain: fc.constantFrom("example.com", "127.0.0.1:8787", "[::1]:80", "user:pw@host.example"),
        address: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}`),
        statement: fc.array(statementChar, { minLength: 1, maxLength: 40 }).map((c) => c.join("")),
        uri: fc.constantFrom("https://example.com/login", "http://127.0.0.1:8787", "urn:uuid:6f1c0d3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f"),
        chainId: fc.nat(),
        nonce: fc.array(alnum, { minLength: 8, maxLength: 32 }).map((c) => c.join("")),
        issuedAt: instant,
        expirationTime: instant,
        notBefore: instant,
        requestId: fc.constantFrom("", "abc", "a:b@c%20d"),
        resources: fc.array(fc.constantFrom("ipfs://bafy/", "https://example.com/x?y=1"), { maxLength: 3 }),
      },
      { requiredKeys: ["domain", "address", "uri", "chainId", "nonce", "issuedAt"] },
    );
    fc.assert(
      fc.property(fields, (f) => {
        const text = buildSiweMessage(f);
        const parsed = parseSiweMessage(text);
        expect(parsed.address.toLowerCase()).toBe(f.address);
        expect({ ...parsed, address: f.address }).toEqual({ ...f, version: "1" });
        expect(buildSiweMessage(parsed)).toBe(text);
      }),
    );
  });
});

describe("siweTarget", () => {
  it("takes host[:port] as the domain and the URL without a trailing slash as the URI", () => {
    expect(siweTarget("http://127.0.0.1:8787/")).toEqual({ domain: "127.0.0.1:8787", uri: "http://127.0.0.1:8787" });
    expect(siweTarget("https://relay.example/api/")).toEqual({ domain: "relay.example", uri: "https://relay.example/api" });
    expect(siweTarget("http://[::1]:9000")).toEqual({ domain: "[::1]:9000", uri: "http://[::1]:9000" });
  });
});
