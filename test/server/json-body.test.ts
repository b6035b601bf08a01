// The JSON body parser's poisoning check on parsed values (the HTTP-level refusals are in app.test.ts).
import { describe, expect, it } from "vitest";
import { isPoisoned } from "../../src/server/json-body.ts";

describe("isPoisoned", () => {
  it("finds an own __proto__ or constructor.prototype at any depth, in objects and arrays", () => {
    expect(isPoisoned(JSON.parse('{"a":{"b":[1,{"__proto__":1}]}}'))).toBe(true);
    expect(isPoisoned(JSON.parse('[[{"constructor":{"prototype":null}}]]'))).toBe(true);
    expect(isPoisoned(JSON.parse('{"c":{"constructor":{"prototype":{}}}}'))).toBe(true);
  });

  it("passes values whose keys only resemble them", () => {
    expect(isPoisoned(JSON.parse('{"constructor":"x","proto":{},"memo":"__proto__"}'))).toBe(false);
    expect(isPoisoned(JSON.parse('{"constructor":{"name":"prototype"}}'))).toBe(false);
    expect(isPoisoned(JSON.parse('{"constructor":null}'))).toBe(false);
    expect(isPoisoned(null)).toBe(false);
    expect(isPoisoned("__proto__")).toBe(false);
  });

  it("walks a value nested far deeper than the call stack allows, and finds poison at its bottom", () => {
    const depth = 100_000;
    expect(isPoisoned(JSON.parse(`${"[".repeat(depth)}1${"]".repeat(depth)}`))).toBe(false);
    expect(isPoisoned(JSON.parse(`${"[".repeat(depth)}{"__proto__":1}${"]".repeat(depth)}`))).toBe(true);
  });
});
