// `relay pay` with the off-chain flags end to end against `relay serve`: the reviewed bot's payment
// carries --invoice-id, --order-id, --recipient-label, --resource-url and --x402-funding to the
// relayer, which stores them with the held request; `relay review show` prints them and its --json
// is the stored review item. A field the relayer refuses is exit 3 with its code; a --x402-funding
// that is not a JSON object is refused before anything is signed or sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { field, startLiveRelay, type LiveRelay } from "./support/live.ts";

const PAYEE = "0x00000000000000000000000000000000000000f1" as Address;
const FUNDING = { network: "base-sepolia", amount: "2000000", payTo: PAYEE, extra: { name: "USDC" } };
let live: LiveRelay;

beforeAll(async () => {
  live = await startLiveRelay("relay-cli-offchain-");
});
afterAll(() => live?.stop());

describe("relay pay with off-chain fields", () => {
  it("sends all five; the held request's review shows them, in text and as the stored item", async () => {
    const held = await live.relay([
      "pay", "--bot", "reviewed", "--to", PAYEE, "--amount", "2", "--token", "USDC",
      "--invoice-id", "INV-77", "--order-id", "ORD-9", "--recipient-label", "Acme Hosting",
      "--resource-url", "https://api.example.com/invoices/77", "--x402-funding", JSON.stringify(FUNDING),
    ]);
    expect(held.code).toBe(4);
    const requestId = field(held.stdout, "requestId")!;
    expect(requestId).toMatch(/^req_/);

    const shown = await live.relay(["review", "show", requestId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Invoice: +INV-77$/m);
    expect(shown.stdout).toMatch(/^Order: +ORD-9$/m);
    expect(shown.stdout).toMatch(/^Label: +Acme Hosting \(the bot's label for the recipient, not verified\)$/m);
    expect(shown.stdout).toMatch(/^Resource: +https:\/\/api\.example\.com\/invoices\/77$/m);
    expect(shown.stdout).toMatch(new RegExp(`^x402 funding: +network: base-sepolia\\n +amount: 2000000\\n +payTo: ${PAYEE}\\n +extra\\.name: USDC$`, "m"));

    const json = await live.relay(["review", "show", requestId, "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      requestId,
      status: "pending_review",
      invoiceId: "INV-77",
      orderId: "ORD-9",
      recipientLabel: "Acme Hosting",
      resourceUrl: "https://api.example.com/invoices/77",
      x402Funding: FUNDING,
    });
    expect(await live.balanceOf("USDC", PAYEE)).toBe(0n);
  });

  it("a field the relayer refuses is exit 3 with its code, and nothing is paid", async () => {
    const { code, stdout, stderr } = await live.relay(["pay", "--to", PAYEE, "--amount", "1", "--token", "USDC", "--resource-url", "ftp://example.com/x"]);
    expect({ code, stdout }).toEqual({ code: 3, stdout: "" });
    expect(stderr).toBe("relay: relayer refused: INVALID_RESOURCE_URL: Invalid resourceUrl (resourceUrl must be an absolute http or https URL)\n");
    expect(await live.balanceOf("USDC", PAYEE)).toBe(0n);
  });

  it("--x402-funding must be true or a JSON object: exit 2 before signing", async () => {
    for (const bad of ["network=base", "[1]", "null", "false"]) {
      const result = await live.relay(["pay", "--to", PAYEE, "--amount", "1", "--token", "USDC", "--x402-funding", bad]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^relay: --x402-funding must be true or a JSON object/);
    }
  });
});
