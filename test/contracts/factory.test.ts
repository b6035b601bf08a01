import { hashTypedData, toFunctionSelector, zeroAddress, type Address, type Hex } from "viem";
import { intentTypes } from "../../packages/client/src/intent-types.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, revertOf, setupFixture, type Fixture } from "./fixture.ts";

describe("ServiceVaultFactory", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await setupFixture();
  });
  afterAll(async () => f?.chain.close());

  it("deploys vaults owned by the caller and records them", async () => {
    const owner = account(7);
    const receipt = await f.write(owner, f.factory, "ServiceVaultFactory", "deployVault");
    const [ev] = f.events(receipt, "ServiceVaultFactory", "VaultDeployed");
    const vault = ev!.args.vault as Address;
    expect(ev!.args.owner).toBe(owner.address);
    expect(await f.read(vault, "ServiceVault", "owner")).toBe(owner.address);
    expect(await f.read(f.factory, "ServiceVaultFactory", "isVault", [vault])).toBe(true);
    expect(await f.read(f.factory, "ServiceVaultFactory", "isVault", [f.registry])).toBe(false);
    expect(await f.read(f.factory, "ServiceVaultFactory", "getVaults", [owner.address])).toEqual([vault]);
    expect(await f.read(f.factory, "ServiceVaultFactory", "registry")).toBe(f.registry);
    expect(await f.read(f.factory, "ServiceVaultFactory", "domainName")).toBe("ServiceVault");
    expect(await f.read(vault, "ServiceVault", "registry")).toBe(f.registry);
  });

  it("a vault is an EIP-1167 clone of the implementation", async () => {
    const impl = await f.read<Address>(f.factory, "ServiceVaultFactory", "implementation");
    const code = await f.clients.publicClient.getCode({ address: f.vault });
    expect(code).toBe(`0x363d3d373d3d3d363d73${impl.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`);
  });

  it("the clone's EIP-712 domain carries the factory's name, version 1, the chain and the clone address", async () => {
    const [fields, name, version, chainId, verifyingContract, salt, extensions] = await f.read<[Hex, string, string, bigint, Address, Hex, bigint[]]>(
      f.vault, "ServiceVault", "eip712Domain");
    expect({ fields, name, version, chainId, verifyingContract, salt, extensions }).toEqual({
      fields: "0x0f", name: "ServiceVault", version: "1", chainId: 84532n, verifyingContract: f.vault, salt: `0x${"0".repeat(64)}`, extensions: [],
    });
  });

  it("a second factory with another domain name gives vaults another domain (and other digests)", async () => {
    const other = await f.deploy("ServiceVaultFactory", [f.registry, "AcmeVault"]);
    const receipt = await f.write(f.owner, other, "ServiceVaultFactory", "deployVault");
    const vault = f.events(receipt, "ServiceVaultFactory", "VaultDeployed")[0]!.args.vault as Address;
    const [, name] = await f.read<[Hex, string]>(vault, "ServiceVault", "eip712Domain");
    expect(name).toBe("AcmeVault");
    expect(await f.read(f.factory, "ServiceVaultFactory", "isVault", [vault])).toBe(false);
    expect(await f.read(other, "ServiceVaultFactory", "isVault", [vault])).toBe(true);
    // the same intent hashed by the two vaults differs, and matches each vault's own domain when signed
    const intent = await f.payment();
    const a = await f.read<Hex>(f.vault, "ServiceVault", "hashPaymentIntent", [intent]);
    const b = await f.read<Hex>(vault, "ServiceVault", "hashPaymentIntent", [intent]);
    expect(a).not.toBe(b);
    expect(hashTypedData({ domain: await f.domainOf(vault), types: { PaymentIntent: intentTypes.PaymentIntent }, primaryType: "PaymentIntent", message: intent })).toBe(b);
  });

  it("refuses a domain name longer than 31 bytes (the implementation keeps it in code)", async () => {
    // The node names the error when it has the contracts' build info, else gives its selector.
    const tooLong = new RegExp(`StringTooLong|custom error \\(return data: ${toFunctionSelector("StringTooLong(string)")}`);
    await expect(f.deploy("ServiceVaultFactory", [f.registry, "x".repeat(32)])).rejects.toThrow(tooLong);
    await f.deploy("ServiceVaultFactory", [f.registry, "x".repeat(31)]);
  });

  it("the implementation cannot be initialized, nor a vault re-initialized", async () => {
    const impl = await f.read<Address>(f.factory, "ServiceVaultFactory", "implementation");
    expect(await f.read(impl, "ServiceVault", "owner")).toBe(zeroAddress);
    expect(await f.read(impl, "ServiceVault", "trackUsedIntents")).toBe(false);
    expect((await revertOf(() => f.simulate(f.stranger, impl, "ServiceVault", "initialize", [f.stranger.address]))).name).toBe("AlreadyInitialized");
    expect((await revertOf(() => f.simulate(f.stranger, f.vault, "ServiceVault", "initialize", [f.stranger.address]))).name).toBe("AlreadyInitialized");
  });
});
