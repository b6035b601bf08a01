import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixtureVectorsPath, loadVectors, sharedVectorsPath } from "./vectors.ts";

describe("golden vectors", () => {
  it("has one vector of each intent type plus the EIP's own Mail example", () => {
    expect(loadVectors().map((v) => v.name)).toEqual(["eip712-mail", "payment-intent", "execute-intent", "swap-intent", "review-approval"]);
  });

  it.skipIf(!existsSync(sharedVectorsPath))("the repository's copy is identical to the design's (when it sits beside the checkout)", () => {
    expect(JSON.parse(readFileSync(fixtureVectorsPath, "utf8"))).toEqual(JSON.parse(readFileSync(sharedVectorsPath, "utf8")));
  });
});
