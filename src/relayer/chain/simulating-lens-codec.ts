// The request path's one node call, SimulatingLens.readAndSimulate(queries, simulations), encoded
// and decoded by hand, as payment-calldata.ts does for the vault's calls: viem's generic ABI coder
// cost more CPU than everything else about the call (a group of 12 queries and their simulations
// is some 10 KB of calldata, and the answer twice that). The layout written here is checked against
// the lens's ABI when the module loads; should the contract's signature differ (a changed Query),
// or a value not fit its type, viem's coder is used instead, so the calldata is always the bytes
// viem would give. The answer is read word by word with bounds checks (snapshot-codec.ts's AbiWords).
import { decodeFunctionResult, encodeFunctionData, getAbiItem, toFunctionSelector, toFunctionSignature, type AbiFunction, type Address, type Hex } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import { AbiWords } from "./snapshot-codec.ts";
import { WORD, MAX_UINT, word, addressWord, bytesTail, arrayOf, concat, lower } from "./abi-hex.ts";

/** The lens's Query struct, every field given (zero address / zero hash where unused). */
export interface LensQuery {
  factory: Address;
  vault: Address;
  bot: Address;
  to: Address;
  tokens: readonly Address[];
  amounts: readonly bigint[];
  intentHash: Hex;
  protocol: Address;
  toToken: Address;
}

export interface LensSimulation {
  from: Address;
  to: Address;
  data: Hex;
}

export interface LensOutcome {
  ok: boolean;
  /** Return data when `ok`, else revert data. */
  result: Hex;
}

const lensAbi = readArtifact("lens/SimulatingLens").abi;
const QUERY = "(address,address,address,address,address[],uint256[],bytes32,address,address)";
const QUERY_FIELDS = "address factory,address vault,address bot,address to,address[] tokens,uint256[] amounts,bytes32 intentHash,address protocol,address toToken";
const SIMULATION = "(address,address,bytes)";
const OUTPUTS = "bytes,(bool,bytes)[]";

/** The selector (without 0x) when the lens's ABI is the layout written here, else undefined. */
function readAndSimulateSelector(): string | undefined {
  const item = getAbiItem({ abi: lensAbi, name: "readAndSimulate" }) as AbiFunction | undefined;
  if (!item || toFunctionSignature(item) !== `readAndSimulate(${QUERY}[],${SIMULATION}[])`) return undefined;
  const query = item.inputs[0] as { components?: ReadonlyArray<{ type: string; name?: string }> };
  if (query.components?.map((c) => `${c.type} ${c.name}`).join(",") !== QUERY_FIELDS) return undefined;
  const outputs = item.outputs.map((o) => ("components" in o ? `(${o.components.map((c) => c.type).join(",")})${o.type.slice("tuple".length)}` : o.type));
  if (outputs.join(",") !== OUTPUTS) return undefined;
  return toFunctionSelector(item).slice(2);
}

const SELECTOR = readAndSimulateSelector();
/** Whether the hand-written coder is in use (the lens's ABI is the layout written here). */
export const handWritten = SELECTOR !== undefined;

/** A Query tuple's encoding (its head, then its two arrays), or undefined when a value does not fit. */
function queryTuple(q: LensQuery): string | undefined {
  const factory = addressWord(q.factory);
  const vault = addressWord(q.vault);
  const bot = addressWord(q.bot);
  const to = addressWord(q.to);
  const protocol = addressWord(q.protocol);
  const toToken = addressWord(q.toToken);
  if (!factory || !vault || !bot || !to || !protocol || !toToken || !WORD.test(q.intentHash)) return undefined;
  const tokens: string[] = [];
  for (const token of q.tokens) {
    const w = addressWord(token);
    if (!w) return undefined;
    tokens.push(w);
  }
  const amounts: string[] = [];
  for (const amount of q.amounts) {
    if (typeof amount !== "bigint" || amount < 0n || amount > MAX_UINT) return undefined;
    amounts.push(word(amount));
  }
  const tokensAt = 9 * 32;
  const amountsAt = tokensAt + 32 * (1 + tokens.length);
  return (
    factory + vault + bot + to + word(tokensAt) + word(amountsAt) + lower(q.intentHash.slice(2)) + protocol + toToken +
    word(tokens.length) + concat(tokens) + word(amounts.length) + concat(amounts)
  );
}

/** A Simulation tuple's encoding, or undefined when a value does not fit. */
function simulationTuple(s: LensSimulation): string | undefined {
  const from = addressWord(s.from);
  const to = addressWord(s.to);
  const data = bytesTail(s.data);
  if (!from || !to || !data) return undefined;
  return from + to + word(3 * 32) + data;
}

/** The calldata of readAndSimulate(queries, simulations). */
export function readAndSimulateCalldata(queries: readonly LensQuery[], simulations: readonly LensSimulation[]): Hex {
  const fallback = () => encodeFunctionData({ abi: lensAbi, functionName: "readAndSimulate", args: [queries, simulations] });
  if (!SELECTOR) return fallback();
  const queryTuples: string[] = [];
  for (const query of queries) {
    const tuple = queryTuple(query);
    if (tuple === undefined) return fallback();
    queryTuples.push(tuple);
  }
  const simulationTuples: string[] = [];
  for (const simulation of simulations) {
    const tuple = simulationTuple(simulation);
    if (tuple === undefined) return fallback();
    simulationTuples.push(tuple);
  }
  const queriesPart = arrayOf(queryTuples);
  return `0x${SELECTOR}${word(2 * 32)}${word(2 * 32 + queriesPart.length / 2)}${queriesPart}${arrayOf(simulationTuples)}`;
}

/**
 * readAndSimulate's return data: the encoded Snapshot[] (a view of `data`'s bytes, for
 * decodeSnapshots) and each simulation's outcome. Throws on data that is not that encoding.
 */
export function decodeReadAndSimulate(data: Hex): { snapshots: Buffer; outcomes: LensOutcome[] } {
  if (!SELECTOR) {
    const [snapshots, outcomes] = decodeFunctionResult({ abi: lensAbi, functionName: "readAndSimulate", data }) as readonly [Hex, readonly LensOutcome[]];
    return { snapshots: Buffer.from(snapshots.slice(2), "hex"), outcomes: [...outcomes] };
  }
  const w = new AbiWords(data, "the simulating lens's output");
  const snapshots = w.subarray(w.offset(0));
  const array = w.offset(32);
  const count = w.offset(array);
  const items = array + 32;
  const outcomes: LensOutcome[] = [];
  for (let i = 0; i < count; i++) {
    const tuple = items + w.offset(items + 32 * i);
    outcomes.push({ ok: w.bool(tuple), result: w.hexBytes(tuple + w.offset(tuple + 32)) });
  }
  return { snapshots, outcomes };
}
