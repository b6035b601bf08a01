import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChain, type LocalChain } from "../../src/chain/hardhat.ts";

describe("startChain", () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startChain({ chainId: 42161 });
  });
  afterAll(async () => chain?.close());

  it("runs the requested chain id with the well-known dev accounts", async () => {
    expect(await chain.provider.request({ method: "eth_chainId" })).toBe("0xa4b1");
    const accounts = (await chain.provider.request({ method: "eth_accounts" })) as string[];
    expect(accounts[0]).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
  });
});
