// Paywalls of the x402 packages as a merchant runs them, unmodified: an @x402/express app and an
// @x402/hono app, each asking "$0.01" (the network's default USDC) for GET /report through the
// facilitator relay serves, and each with a free GET /free. On 127.0.0.1, free ports.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { paymentMiddleware as expressPaywall } from "@x402/express";
import { paymentMiddleware as honoPaywall } from "@x402/hono";
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import type { Address } from "viem";

export interface Merchant {
  /** The paid resource. */
  url: string;
  /** A free resource of the same server. */
  freeUrl: string;
  payTo: Address;
  close(): Promise<void>;
}

export const MERCHANT_BODY = { report: "merchant report", items: [1, 2, 3] } as const;

function routes(network: `eip155:${number}`, payTo: Address) {
  return {
    "GET /report": {
      accepts: { scheme: "exact", price: "$0.01", network, payTo },
      description: "a merchant's report",
      mimeType: "application/json",
    },
  };
}

function resourceServer(facilitatorUrl: string, network: `eip155:${number}`) {
  return new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(network, new ExactEvmScheme());
}

export async function startExpressMerchant(facilitatorUrl: string, chainId: number, payTo: Address): Promise<Merchant> {
  const network = `eip155:${chainId}` as const;
  const app = express();
  app.use(expressPaywall(routes(network, payTo), resourceServer(facilitatorUrl, network)));
  app.get("/report", (_req, res) => {
    res.json(MERCHANT_BODY);
  });
  app.get("/free", (_req, res) => {
    res.type("text/plain").send("free text\n");
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  return merchant(server, payTo);
}

export async function startHonoMerchant(facilitatorUrl: string, chainId: number, payTo: Address): Promise<Merchant> {
  const network = `eip155:${chainId}` as const;
  const app = new Hono();
  app.use(honoPaywall(routes(network, payTo), resourceServer(facilitatorUrl, network)));
  app.get("/report", (c) => c.json(MERCHANT_BODY));
  app.get("/free", (c) => c.text("free text\n"));
  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(listening as Server));
  });
  return merchant(server, payTo);
}

function merchant(server: Server, payTo: Address): Merchant {
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/report`,
    freeUrl: `http://127.0.0.1:${port}/free`,
    payTo,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
