// The devnet's x402 side (DESIGN.md §11): a facilitator (`/facilitator/verify`, `/settle`,
// `/supported`, x402 v2) and a demo paid resource (`/demo/report`), on one loopback HTTP server.
// Both are the x402 packages' own code: the facilitator is @x402/core's x402Facilitator with
// @x402/evm's exact scheme, settling from a devnet account of its own (never the relayer's: their
// nonces would collide); the resource is @x402/core's x402HTTPResourceServer, paid to a devnet
// merchant account through that facilitator over HTTP. The server listens at once (its URLs go into
// the manifest and the banner), and the packages load on the first request or on `warm()`, after the
// devnet is ready, so a start does not wait for them.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Address, EIP1193Provider } from "viem";

export interface X402ServerOptions {
  provider: EIP1193Provider;
  chainId: number;
  /** The devnet's USDC (MockUSDC): the demo's price is in it. */
  usdc: Address;
  /** Its EIP-712 name and version (the domain the payer signs). */
  usdcName: string;
  usdcVersion: string;
  /** The account that sends settlements; the chain holds its key (a dev account). */
  facilitator: Address;
  /** Who the demo resource is paid to. */
  merchant: Address;
  /** The demo's price in USDC's smallest unit. */
  priceAtomic: string;
  port?: number;
}

export interface X402Server {
  readonly facilitatorUrl: string;
  readonly demoUrl: string;
  /** Loads the x402 packages now rather than on the first request; never throws. */
  warm(): void;
  close(): Promise<void>;
}

/** What the demo resource answers once paid. */
export const DEMO_BODY = { report: "relay devnet demo report", paid: true } as const;
const DEMO_PATH = "/demo/report";
const MAX_BODY_BYTES = 64 * 1024;

type Resource = Awaited<ReturnType<typeof loadResource>>;

/** A value made on first use; a failed making is retried on the next use rather than remembered. */
function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      pending = make();
      pending.catch(() => (pending = undefined));
    }
    return pending;
  };
}

export async function startX402Server(options: X402ServerOptions): Promise<X402Server> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: "internal error", code: "INTERNAL", details: { message: (error as Error).message } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const facilitatorUrl = `${base}/facilitator`;
  const demoUrl = `${base}${DEMO_PATH}`;

  // Apart: the resource server's initialize() asks this very server's facilitator what it supports.
  const facilitatorEngine = lazy(() => loadFacilitator(options));
  const resourceEngine = lazy(() => loadResource(options, facilitatorUrl, demoUrl));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", base);
    if (url.pathname === "/facilitator/supported" && req.method === "GET") {
      return sendJson(res, 200, (await facilitatorEngine()).getSupported());
    }
    if ((url.pathname === "/facilitator/verify" || url.pathname === "/facilitator/settle") && req.method === "POST") {
      const body = await readJson(req);
      if (!isRecord(body) || !isRecord(body.paymentPayload) || !isRecord(body.paymentRequirements)) {
        return sendJson(res, 400, { error: "the body must be {x402Version, paymentPayload, paymentRequirements}", code: "INVALID_REQUEST", details: {} });
      }
      const facilitator = await facilitatorEngine();
      const payload = body.paymentPayload as never;
      const requirements = body.paymentRequirements as never;
      try {
        if (url.pathname.endsWith("/verify")) return sendJson(res, 200, await facilitator.verify(payload, requirements));
        return sendJson(res, 200, await facilitator.settle(payload, requirements));
      } catch (error) {
        // The facilitator throws for what it cannot handle at all (an x402 version, scheme or network
        // it does not support); a payment it judges invalid is a 200 with isValid/success false.
        return sendJson(res, 400, { error: (error as Error).message, code: "UNSUPPORTED_PAYMENT", details: {} });
      }
    }
    if (url.pathname === DEMO_PATH && req.method === "GET") return serveDemo(req, res, url, await resourceEngine());
    return sendJson(res, 404, { error: `no route ${req.method} ${url.pathname}`, code: "NOT_FOUND", details: {} });
  }

  return {
    facilitatorUrl,
    demoUrl,
    warm() {
      facilitatorEngine().then(resourceEngine).catch(() => {});
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function loadFacilitator(options: X402ServerOptions) {
  const [{ x402Facilitator }, { ExactEvmScheme: FacilitatorScheme }, { toFacilitatorEvmSigner }, viem] = await Promise.all([
    import("@x402/core/facilitator"),
    import("@x402/evm/exact/facilitator"),
    import("@x402/evm"),
    import("viem"),
  ]);
  const network = `eip155:${options.chainId}` as const;
  const chain = viem.defineChain({
    id: options.chainId,
    name: `chain-${options.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [] } },
  });
  const client = viem
    .createWalletClient({ account: options.facilitator, chain, transport: viem.custom(options.provider) })
    .extend(viem.publicActions);
  const signer = toFacilitatorEvmSigner({
    address: options.facilitator,
    readContract: (args) => client.readContract(args as never),
    verifyTypedData: (args) => client.verifyTypedData(args as never),
    writeContract: (args) => client.writeContract(args as never),
    sendTransaction: (args) => client.sendTransaction(args as never),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args as never),
    getCode: (args) => client.getCode(args),
  });
  return new x402Facilitator().register(network, new FacilitatorScheme(signer));
}

async function loadResource(options: X402ServerOptions, facilitatorUrl: string, demoUrl: string) {
  const [{ x402ResourceServer, x402HTTPResourceServer, HTTPFacilitatorClient }, { ExactEvmScheme: ServerScheme }] = await Promise.all([
    import("@x402/core/server"),
    import("@x402/evm/exact/server"),
  ]);
  const network = `eip155:${options.chainId}` as const;
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(network, new ServerScheme());
  const http = new x402HTTPResourceServer(resourceServer, {
    [`GET ${DEMO_PATH}`]: {
      accepts: {
        scheme: "exact",
        network,
        payTo: options.merchant,
        price: { amount: options.priceAtomic, asset: options.usdc, extra: { name: options.usdcName, version: options.usdcVersion } },
        maxTimeoutSeconds: 300,
      },
      resource: demoUrl,
      description: "relay devnet demo report",
      mimeType: "application/json",
    },
  });
  await http.initialize();
  return http;
}

async function serveDemo(req: IncomingMessage, res: ServerResponse, url: URL, http: Resource): Promise<void> {
  const header = (name: string) => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const adapter = {
    getHeader: header,
    getMethod: () => req.method ?? "GET",
    getPath: () => url.pathname,
    getUrl: () => url.toString(),
    getAcceptHeader: () => header("accept") ?? "",
    getUserAgent: () => header("user-agent") ?? "",
    getQueryParams: () => Object.fromEntries(url.searchParams),
    getQueryParam: (name: string) => url.searchParams.get(name) ?? undefined,
  };
  const context = { adapter, path: url.pathname, method: req.method ?? "GET", paymentHeader: header("payment-signature") };
  const result = await http.processHTTPRequest(context);
  if (result.type === "payment-error") return sendInstructions(res, result.response);
  if (result.type === "no-payment-required") return sendJson(res, 200, DEMO_BODY);
  const body = Buffer.from(JSON.stringify(DEMO_BODY));
  const settled = await http.processSettlement(result.paymentPayload, result.paymentRequirements, result.declaredExtensions, {
    request: context,
    responseBody: body,
    responseHeaders: { "content-type": "application/json" },
  });
  if (!settled.success) return sendInstructions(res, settled.response, settled.headers);
  res.writeHead(200, { ...settled.headers, "content-type": "application/json", "content-length": body.length });
  res.end(body);
}

function sendInstructions(res: ServerResponse, response: { status: number; headers: Record<string, string>; body?: unknown; isHtml?: boolean }, extra: Record<string, string> = {}): void {
  const headers = { ...extra, ...response.headers };
  if (response.body === undefined) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body);
  const type = response.isHtml ? "text/html; charset=utf-8" : "application/json";
  res.writeHead(response.status, { "content-type": type, ...headers });
  res.end(text);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
