// The two nodes the relayer benchmark runs on, behind one interface so that its rounds are written
// once (bench/relayer.bench.ts):
//   in-process: the devnet's Hardhat chain (EDR) and the relayer, both in this process, as
//     `relay serve` alone runs them; its CPU is read per thread (the chain's thread, the JS thread);
//   anvil: a fresh anvil (test/support/anvil.ts) and relay as its own `relay serve` process on it
//     (bench/support/relay-process.ts), as users run it; CPU is read per process from /proc.
// Each node has an extra relayer key authorized in the registry that sends the direct transactions,
// so direct and relayed never share nonces.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Address, EIP1193Provider } from "viem";
import { clientsFor, type Clients } from "../../src/chain/clients.ts";
import { createSender } from "../../src/chain/sender.ts";
import { devKeyPair, ROLE_INDEX, type KeyPair } from "../../src/devnet/accounts.ts";
import type { Manifest } from "../../src/devnet/manifest.ts";
import { startDevnet } from "../../src/devnet/start.ts";
import { chainFromManifest, parseRelayerConfig } from "../../src/relayer/config.ts";
import { startRelayer } from "../../src/app/service.ts";
import { startAnvil } from "../../test/support/anvil.ts";
import { processCpuMicros, startRelayProcess, type RelayProcess } from "./relay-process.ts";
import { nodeRpc } from "./node-rpc.ts";

export type NodeKind = "in-process" | "anvil";

export interface BenchNode {
  kind: NodeKind;
  /** What it is, for the printed header. */
  title: string;
  manifest: Manifest;
  clients: Clients;
  /** The relayer's base URL. */
  relayerUrl: string;
  /** One JSON-RPC call to the node (the direct transactions and their receipts). */
  rpc(method: string, params: unknown[]): Promise<unknown>;
  /**
   * Whether the node answers `eth_sendRawTransactionSync` (EIP-7966: the receipt once mined), the
   * quickest a direct sender can learn of its receipt. Otherwise the receipt is polled.
   */
  sendSync: boolean;
  /** The key that sends direct transactions, authorized as a relayer in the registry. */
  direct: KeyPair;
  /**
   * CPU time so far in µs of the parts worth comparing, by name. `relayer` is the relayer's own CPU
   * when it can be told apart (the relay process, all threads); the rest explain what bounds a round.
   */
  cpu(): Record<string, number>;
  /** The relayer's log, where it runs as its own process: shown when the benchmark fails. */
  relayerLog?(): string;
  close(): Promise<void>;
}

/** A second authorized relayer key (#6) that sends the direct transactions. */
async function authorizeDirect(clients: Clients, manifest: Manifest): Promise<KeyPair> {
  const direct = devKeyPair(6);
  await createSender(clients, devKeyPair(ROLE_INDEX.deployer).privateKey).call(manifest.contracts.registry as Address, "ServiceRegistry", "addRelayer", [direct.address]);
  return direct;
}

export async function inProcessNode(): Promise<BenchNode> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "relay-bench-"));
  const devnet = await startDevnet({ chainId: 84532, domainName: "ServiceVault", rpcPort: 0, stateDir });
  const manifest = devnet.manifest;
  const provider = devnet.chain.provider as EIP1193Provider;
  const unlimited = { capacity: 0, refillPerSecond: 0 };
  const relayer = await startRelayer({
    config: parseRelayerConfig({ stateDir, chains: [chainFromManifest(manifest)], rateLimits: { bot: unlimited, vault: unlimited, client: unlimited } }),
    port: 0,
    providers: new Map([[manifest.chainId, provider]]),
  });
  const clients = clientsFor(provider, manifest.chainId);
  return {
    kind: "in-process",
    title: "in-process chain (Hardhat EDR) with the relayer in the same process",
    manifest,
    clients,
    relayerUrl: relayer.url,
    rpc: (method, params) => provider.request({ method, params } as never),
    // The chain mines within eth_sendRawTransaction: the first receipt read finds it.
    sendSync: false,
    direct: await authorizeDirect(clients, manifest),
    cpu: () => {
      // The chain runs on its own thread but needs the JS thread between requests; the JS thread
      // also runs this benchmark's HTTP client, so it is not the relayer's alone.
      const threads = threadCpuMicros();
      return { "chain thread": threads.get("edr-provider") ?? NaN, "JS thread (relayer + bench client)": threads.get("MainThread") ?? NaN };
    },
    async close() {
      await relayer.close();
      await devnet.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export async function anvilNode(): Promise<BenchNode> {
  const anvil = await startAnvil();
  let relay: RelayProcess | undefined;
  try {
    relay = await startRelayProcess({ rpcUrl: anvil.url });
    const { pid, stop, output } = relay;
    const manifest = relay.manifest;
    const clients = clientsFor(anvil.url, manifest.chainId);
    const direct = await authorizeDirect(clients, manifest);
    const node = nodeRpc(anvil.url, 64);
    return {
      kind: "anvil",
      title: "anvil (its own process) with `relay serve` as its own process",
      manifest,
      clients,
      relayerUrl: relay.url,
      rpc: node.call,
      sendSync: true,
      direct,
      cpu: () => ({ relayer: processCpuMicros(pid), anvil: processCpuMicros(anvil.pid) }),
      relayerLog: output,
      async close() {
        await node.close();
        await stop();
        await anvil.stop();
      },
    };
  } catch (error) {
    await relay?.stop();
    await anvil.stop();
    throw error;
  }
}

/** CPU µs so far of this process's threads, by thread name (Linux /proc; empty elsewhere). */
function threadCpuMicros(): Map<string, number> {
  const out = new Map<string, number>();
  if (!existsSync("/proc/self/task")) return out;
  for (const task of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime + stime in clock ticks of USER_HZ, which Linux fixes at 100 for /proc.
      out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
