// The term checks behind SIWE parsing: RFC 3339 date-times (to the instant they name), RFC 3986
// authorities and URIs.
import { describe, expect, it } from "vitest";
import { dateTimeMs, domainProblem, uriProblem } from "../../packages/client/src/siwe-grammar.ts";

describe("dateTimeMs (RFC 3339)", () => {
  it.each<[string, number]>([
    ["2026-01-01T00:00:00Z", Date.UTC(2026, 0, 1)],
    ["2026-01-01t00:00:00z", Date.UTC(2026, 0, 1)],
    ["2026-01-01T02:30:00+02:30", Date.UTC(2026, 0, 1)],
    ["2025-12-31T19:00:00-05:00", Date.UTC(2026, 0, 1)],
    ["2026-01-01T00:00:00.1Z", Date.UTC(2026, 0, 1) + 100],
    ["2026-01-01T00:00:00.123999Z", Date.UTC(2026, 0, 1) + 123],
    ["2024-02-29T12:00:00Z", Date.UTC(2024, 1, 29, 12)],
    ["2016-12-31T23:59:60Z", Date.UTC(2017, 0, 1)],
  ])("%s is %d ms", (text, ms) => {
    expect(dateTimeMs(text)).toBe(ms);
  });

  it("keeps two-digit years as written (no 1900 offset)", () => {
    expect(new Date(dateTimeMs("0099-06-15T00:00:00Z")!).getUTCFullYear()).toBe(99);
  });

  it.each([
    "2026-01-01",
    "2026-01-01T00:00Z",
    "2026-01-01T00:00:00",
    "2026-01-01 00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-13-10T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "2100-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T00:60:00Z",
    "2026-01-01T00:00:61Z",
    "2026-01-01T00:00:00.Z",
    "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00+01:60",
    "2026-01-01T00:00:00+0100",
    "+2026-01-01T00:00:00Z",
  ])("refuses %s", (text) => {
    expect(dateTimeMs(text)).toBeUndefined();
  });
});

describe("domainProblem (RFC 3986 authority)", () => {
  it.each(["example.com", "127.0.0.1:8787", "localhost:", "[::1]:8080", "[v1.fe80::a+en1]", "user:pass@host", "xn--bcher-kva.example", "h%C3%A9.example"])(
    "accepts %s",
    (domain) => expect(domainProblem(domain)).toBeUndefined(),
  );
  it.each(["", "exa mple.com", "host:port", "host/path", "[::1", "user@", "ho%zzst", "a@b@c"])("refuses %j", (domain) => {
    expect(domainProblem(domain)).toMatch(/RFC 3986 authority/);
  });
});

describe("uriProblem (RFC 3986 URI)", () => {
  it.each(["https://example.com/login", "http://127.0.0.1:8787", "file:///etc/hosts", "urn:isbn:0451450523", "mailto:a@b.example", "https://x.example/a?b=c#d"])(
    "accepts %s",
    (uri) => expect(uriProblem(uri)).toBeUndefined(),
  );
  it.each(["", "example.com", "://x", "1http://x", "http://x/a b", "http://x/#a#b", "http://x/%g0", "http://x\\y"])("refuses %j", (uri) => {
    expect(uriProblem(uri)).toBeDefined();
  });
});
