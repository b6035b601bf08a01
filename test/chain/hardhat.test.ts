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

  it("keeps its clock with the wall clock however many blocks it mines (blocks may share a timestamp)", async () => {
    const [from] = (await chain.provider.request({ method: "eth_accounts" })) as `0x${string}`[];
    for (let i = 0; i < 40; i++) await chain.provider.request({ method: "eth_sendTransaction", params: [{ from: from!, to: from!, value: "0x1" }] });
    const latest = (await chain.provider.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { number: string; timestamp: string };
    expect(Number(latest.number)).toBeGreaterThanOrEqual(40);
    // Strictly increasing timestamps would put this block 40 s or more ahead of now.
    expect(Number(latest.timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 2);
  });
});
