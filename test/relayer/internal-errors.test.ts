// A failure the relayer did not foresee is answered 500 INTERNAL_ERROR with no cause in the body,
// and the operator is told why in one log line naming the request — without any URL, since a node's
// URL may embed an API key. The fault: while set, the node answers the relayer's policy read with a
// malformed result, and its error message carries an RPC URL with a key in it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EIP1193Provider } from "viem";
import { paymentBody, post, startEnv, type Env } from "./harness.ts";
import { clusterRun } from "./deployment.ts";

const SECRET_URL = "https://rpc.example.invalid/v3/key-0123456789abcdef";

describe.skipIf(clusterRun())("an unexpected failure", () => {
  let env: Env;
  let broken = false;
  const lines: string[] = [];

  beforeAll(async () => {
    env = await startEnv({}, {
      deployment: "one",
      log: (line) => lines.push(line),
      relayerProvider: (provider) => ({
        ...provider,
        request: (async (args: { method: string; params?: unknown }) => {
          if (broken && args.method === "eth_call") return `see ${SECRET_URL}`;
          return provider.request(args as never);
        }) as EIP1193Provider["request"],
      }) as EIP1193Provider,
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  it("is answered 500 INTERNAL_ERROR without its cause, and logged once with the request id and no URL", async () => {
    broken = true;
    const res = await post(`${env.url}/v1/payments`, await paymentBody(env));
    broken = false;
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal error", code: "INTERNAL_ERROR" });
    const logged = lines.filter((line) => line.includes("internal error"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^payment request \S+: internal error: \S/);
    expect(logged[0]).toContain("[url]");
    expect(logged[0]).not.toContain("key-0123456789abcdef");
    expect(logged.join("\n")).not.toContain("rpc.example.invalid");

    const healed = await post(`${env.url}/v1/payments`, await paymentBody(env));
    expect(healed.status).toBe(200);
    expect(healed.body.status).toBe("approved");
  });
});
