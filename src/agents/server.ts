// `relay agents`: the AI panel as its own process (docs/design.md, "AI holds"), so that the keys
// that sign verdicts are never on the relayer's host. It serves one route on 127.0.0.1:
//
//   POST /v1/verdicts  {kind, body, input, scenario?, deadline}  →  {result, intentHash?, verdicts}
//
// It signs nothing it is handed: `body` is the bot's request as the relayer received it, validated
// here afresh; the intent's hash is computed here from the vault's own domain; the bot's signature,
// the bot, the intent's freshness and deadline, the vault's pause and its registered scanners are
// read from the chain; the value, the policy and the summary the agents judge are this process's
// own (the larger of its value and the relayer's). Only the bot's history (its past requests, which
// only the relayer's ledger knows) is the relayer's word. Then its own panel judges, and only the
// agents that approve sign AiVerdict(intentHash, deadline), each with its own key.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readVaultDomain } from "../../packages/client/src/sign.ts";
import { intentKinds, type IntentKind } from "../../packages/client/src/intent-types.ts";
import { validateBody, type RelayRequest } from "../api/validate.ts";
import { OFF_CHAIN_FIELD_NAMES } from "../api/off-chain.ts";
import { readArtifact } from "../chain/artifacts.ts";
import { clientsFor } from "../chain/clients.ts";
import { hashIntent } from "../eip712/hash.ts";
import { isRelayError, relayError, toRelayError, type RelayError } from "../errors.ts";
import { createScanner, type AiConfig } from "../relayer/ai/index.ts";
import { signVerdicts } from "../relayer/ai/verdicts.ts";
import { checkSignature, intentHashOf } from "../relayer/intake/checks.ts";
import { aiScenarioOf, parseScenario } from "../relayer/intake/scenarios.ts";
import { kindOf } from "../relayer/kinds/index.ts";
import { selectorOf } from "../relayer/chain/selector.ts";
import { summarize } from "../relayer/route/scan-input.ts";
import { reviveScanInput, toWire } from "./wire.ts";
import { readBody } from "../http-body.ts";

/** Longest a verdict may stay valid: a verdict is a bearer approval until its intent executes. */
export const MAX_VERDICT_SECONDS = 3_600n;
const MAX_BODY_BYTES = 256 * 1024;

const vaultAbi = readArtifact("ServiceVault").abi;
const registryAbi = readArtifact("ServiceRegistry").abi;

export interface AgentsOptions {
  rpcUrl: string;
  chainId: number;
  /** The chain is a development node: metadata.scenario is honoured (as a devnet relayer does). */
  devnet: boolean;
  /** One key per agent: safety, behavioral, reasoning. */
  keys: readonly Hex[];
  ai: AiConfig;
  port: number;
  log?: (line: string) => void;
}

export interface RunningAgents {
  url: string;
  addresses: Address[];
  close(): Promise<void>;
}

export async function startAgents(options: AgentsOptions): Promise<RunningAgents> {
  const accounts = options.keys.map((key) => privateKeyToAccount(key));
  const scanner = createScanner(options.ai);
  const client = clientsFor(options.rpcUrl, options.chainId).publicClient;
  const ours = new Set(accounts.map((a) => a.address.toLowerCase()));

  const read = <T>(address: Address, abi: typeof vaultAbi, functionName: string, args: readonly unknown[] = []): Promise<T> =>
    client.readContract({ address, abi, functionName, args } as never) as Promise<T>;

  async function verdicts(raw: unknown): Promise<unknown> {
    if (typeof raw !== "object" || raw === null) throw relayError("INVALID_REQUEST", "body must be a JSON object");
    const q = raw as { kind?: unknown; body?: unknown; input?: unknown; deadline?: unknown };
    if (typeof q.kind !== "string" || !(intentKinds as readonly string[]).includes(q.kind)) throw relayError("INVALID_REQUEST", `kind must be one of ${intentKinds.join(", ")}`);
    if (typeof q.deadline !== "string" || !/^\d{1,20}$/.test(q.deadline)) throw relayError("INVALID_DEADLINE", "deadline must be unix seconds as a decimal string");
    const deadline = BigInt(q.deadline);
    let relayerInput;
    try {
      relayerInput = reviveScanInput(q.input);
    } catch (error) {
      throw relayError("INVALID_REQUEST", `input: ${(error as Error).message}`);
    }
    const request = validateBody(q.kind as IntentKind, q.body, undefined, { supportedChainIds: new Set([options.chainId]) });
    const vault = request.vaultAddress;

    const block = await client.getBlock();
    const now = block.timestamp;
    if (deadline <= now || deadline > now + MAX_VERDICT_SECONDS) {
      throw relayError("INVALID_DEADLINE", `deadline must be after the chain's time ${now} and at most ${MAX_VERDICT_SECONDS} seconds later`);
    }
    let domain;
    try {
      domain = await readVaultDomain(client, vault);
    } catch {
      throw relayError("VAULT_NOT_FOUND", `no vault at ${vault} on chain ${options.chainId}`);
    }
    if (domain.chainId !== options.chainId) throw relayError("VAULT_NOT_FOUND", `no vault at ${vault} on chain ${options.chainId}`);
    const intentHash = intentHashOf(request, domain);
    checkSignature(request, intentHash);
    if (request.kind === "payment" && request.swap) {
      checkSignature({ ...request, kind: "swap", intent: request.swap.intent, signature: request.swap.signature } as RelayRequest, hashIntent("swap", domain, request.swap.intent));
    }
    const bot = request.intent.bot;
    const [active, paused, used, cancelled, scanners, config, registry] = await Promise.all([
      read<boolean>(vault, vaultAbi, "isBotActive", [bot]),
      read<boolean>(vault, vaultAbi, "paused"),
      read<boolean>(vault, vaultAbi, "usedIntents", [intentHash]),
      read<boolean>(vault, vaultAbi, "cancelledIntents", [intentHash]),
      read<readonly Address[]>(vault, vaultAbi, "scanners"),
      read<{ maxPerTxAmount: bigint; aiTriggerThreshold: bigint; spendingLimits: readonly { amount: bigint; windowSeconds: bigint }[] }>(vault, vaultAbi, "getBotPolicy", [bot]),
      read<Address>(vault, vaultAbi, "registry"),
    ]);
    if (!active) throw relayError("BOT_NOT_ACTIVE", `bot ${bot} is not active on vault ${vault}`);
    if (paused) throw relayError("VAULT_PAUSED", `vault ${vault} is paused`);
    if (used || cancelled) throw relayError("INTENT_REJECTED", `the intent ${intentHash} is already ${used ? "executed" : "cancelled"} on-chain`);
    if (request.intent.deadline < now) throw relayError("DEADLINE_EXPIRED", "the intent's deadline has passed");
    if (!scanners.some((s) => ours.has(s.toLowerCase()))) {
      throw relayError("INVALID_REQUEST", `vault ${vault} does not register these agents' keys as its scanners`);
    }

    const usd = (token: Address, amount: bigint) => (amount === 0n ? Promise.resolve(0n) : read<bigint>(registry, registryAbi, "usdValue", [token, amount]));
    const own = await ownValue(request, usd).catch(() => {
      throw relayError("PRICE_FEED_STALE", "the request's value could not be read from the registry's price feeds");
    });
    const usdValue = own > relayerInput.usdValue ? own : relayerInput.usdValue;
    const kind = kindOf(request);
    const call = kind.call?.(request);
    const selector = call && selectorOf(call.data);
    const input = {
      ...relayerInput,
      kind: request.kind,
      chainId: options.chainId,
      vault,
      bot,
      counterparty: kind.counterparty(request),
      summary: summarize(request, usdValue, new Map()),
      usdValue,
      policy: {
        aiTriggerThreshold: config.aiTriggerThreshold,
        maxPerTxAmount: config.maxPerTxAmount,
        dailyLimit: config.spendingLimits.find((l) => l.windowSeconds === 86_400n)?.amount ?? 0n,
      },
      selector,
      memo: request.memo,
      metadata: request.metadata,
    };
    if (selector === undefined) delete input.selector;
    if (request.memo === undefined) delete input.memo;
    if (request.metadata === undefined) delete input.metadata;
    // The bot's other off-chain words, from the request itself, not the relayer's copy.
    const offChain: Record<string, string> = {};
    for (const field of OFF_CHAIN_FIELD_NAMES) {
      const value = request[field];
      if (value !== undefined) offChain[field] = typeof value === "string" ? value : JSON.stringify(value);
    }
    if (Object.keys(offChain).length > 0) input.offChain = offChain;
    else delete input.offChain;
    const scenario = aiScenarioOf(parseScenario(request.metadata, options.devnet));
    const result = await scanner.scan(input, { scenario });
    if (!result.approved) return { result, intentHash, verdicts: [] };
    return { result, intentHash, verdicts: await signVerdicts(accounts, result, { domain, intentHash, deadline }) };
  }

  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (req.url !== "/v1/verdicts") throw relayError("NOT_FOUND", "the only route is POST /v1/verdicts");
      if (req.method !== "POST") throw relayError("METHOD_NOT_ALLOWED", "POST /v1/verdicts");
      if (!/^application\/json\b/.test(req.headers["content-type"] ?? "")) throw relayError("UNSUPPORTED_MEDIA_TYPE", "content-type must be application/json");
      const text = await readBody(req, MAX_BODY_BYTES, () => relayError("PAYLOAD_TOO_LARGE", `body exceeds ${MAX_BODY_BYTES} bytes`));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw relayError("INVALID_REQUEST", "body is not JSON");
      }
      send(res, 200, toWire(await verdicts(parsed)));
    } catch (thrown) {
      const error: RelayError = isRelayError(thrown) ? thrown : toRelayError(thrown);
      if (error.code === "INTERNAL_ERROR") options.log?.(`verdicts: internal error: ${(error.cause as Error | undefined)?.message ?? "unknown"}`);
      send(res, error.status, JSON.stringify(error.toJSON()));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    addresses: accounts.map((a) => a.address),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** The request's USD value by the registry's feeds: a payment's or an x402 authorization's amount, a swap's input, an execute's declared tokens and value; a swap-and-pay's larger leg. */
async function ownValue(request: RelayRequest, usd: (token: Address, amount: bigint) => Promise<bigint>): Promise<bigint> {
  switch (request.kind) {
    case "payment": {
      const paid = await usd(request.intent.token, request.intent.amount);
      const swapped = request.swap ? await usd(request.swap.intent.fromToken, request.swap.intent.maxFromAmount) : 0n;
      return paid > swapped ? paid : swapped;
    }
    case "swap":
      return usd(request.intent.fromToken, request.intent.maxFromAmount);
    case "x402":
      return usd(request.intent.token, request.intent.amount);
    case "execute": {
      let total = await usd("0x0000000000000000000000000000000000000000", request.intent.value);
      for (const [k, token] of request.intent.tokens.entries()) total += await usd(token, request.intent.amounts[k] ?? 0n);
      return total;
    }
  }
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
