// What an execute's calldata asks the vault to do, in words an owner can check before approving: the
// function, and each argument labelled, with token amounts in human units ("20,000 USDC"), 2^256−1
// allowances called "unlimited", and addresses the relayer knows named. Also the simulated outflows
// of an execute, in human units and USD. The review items of the API carry what this builds; the CLI
// shows it as it is, so there is one decoder.
import { decodeFunctionData, formatUnits, parseUnits, getAddress, maxUint256, parseAbiItem, toFunctionSelector, type AbiFunction, type Address, type Hex } from "viem";
import { readArtifact } from "../../chain/artifacts.ts";
import { tokenInfoOf, type TokenInfo } from "./token-info.ts";

/** One argument as the owner reads it. `value` is exact (decimal base units, checksummed address); `text` is for reading. */
export interface CallArgument {
  name: string;
  type: string;
  value: string | string[] | boolean;
  text: string;
  /** For a token amount: the token, and the amount in human units when the token is known. */
  token?: Address;
  symbol?: string;
  decimals?: number;
  human?: string;
  /** An allowance of 2^256−1: no limit at all. */
  unlimited?: true;
}

export type DecodedCall =
  | {
      decoded: true;
      target: Address;
      /** The target's symbol when it is a token the relayer knows. */
      targetSymbol?: string;
      selector: Hex;
      function: string;
      signature: string;
      arguments: CallArgument[];
      /** One line: "approve(spender 0x7099…79C8, amount 20,000 USDC)". */
      summary: string;
    }
  | {
      decoded: false;
      target: Address;
      targetSymbol?: string;
      selector?: Hex;
      calldataBytes: number;
      /** Why it was not decoded, e.g. "not decoded: unknown function 0x12345678 (68 bytes of calldata)". */
      summary: string;
    };

export interface DecodeContext {
  /** Symbol and decimals of the chain's known tokens, by lower-case address (dispatcher.tokenInfo). */
  tokens: ReadonlyMap<string, TokenInfo>;
  /** The vault making the call: named "the vault itself" where it appears as an argument. */
  vault?: Address;
}

// How to read each argument of a known function. An amount is in the call's target token ("target"),
// or in the token named by another argument ("arg:<name>"); "count" is a plain number (ERC-1155
// amounts have no decimals), "id" a token id, "price" an amount in a token the calldata does not name.
type Reading = "address" | "target" | `arg:${string}` | "id" | "count" | "price" | "bool" | "bytes";

interface KnownFunction {
  abi: AbiFunction;
  readings: Record<string, Reading>;
}

const standard = (signature: string, readings: Record<string, Reading>): KnownFunction => ({
  abi: parseAbiItem(`function ${signature}`) as AbiFunction,
  readings,
});

// ERC-20, ERC-721 and ERC-1155 functions that move or grant the right to move the vault's assets.
const standardFunctions: KnownFunction[] = [
  standard("approve(address spender, uint256 amount)", { spender: "address", amount: "target" }),
  standard("increaseAllowance(address spender, uint256 amount)", { spender: "address", amount: "target" }),
  standard("setApprovalForAll(address operator, bool approved)", { operator: "address", approved: "bool" }),
  standard("transfer(address to, uint256 amount)", { to: "address", amount: "target" }),
  standard("transferFrom(address from, address to, uint256 amount)", { from: "address", to: "address", amount: "target" }),
  standard("safeTransferFrom(address from, address to, uint256 tokenId)", { from: "address", to: "address", tokenId: "id" }),
  standard("safeTransferFrom(address from, address to, uint256 tokenId, bytes data)", { from: "address", to: "address", tokenId: "id", data: "bytes" }),
  standard("safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)", { from: "address", to: "address", id: "id", amount: "count", data: "bytes" }),
  standard("safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)", { from: "address", to: "address", ids: "id", amounts: "count", data: "bytes" }),
];

// The devnet's mock protocols, with the parameter names of their compiled ABIs.
const mockFunctions: Array<{ contract: string; name: string; readings: Record<string, Reading> }> = [
  { contract: "mocks/MockMarketplace", name: "buy", readings: { nft: "address", tokenId: "id" } },
  { contract: "mocks/MockMarketplace", name: "list", readings: { nft: "address", tokenId: "id", price: "price" } },
  { contract: "mocks/MockLendingPool", name: "supply", readings: { token: "address", amount: "arg:token" } },
  { contract: "mocks/MockLendingPool", name: "withdraw", readings: { token: "address", amount: "arg:token" } },
];

let known: Map<string, KnownFunction> | undefined;

// Built on first use, so that importing this module does not read artifacts.
function knownFunctions(): Map<string, KnownFunction> {
  if (known === undefined) {
    known = new Map();
    const add = (fn: KnownFunction) => known!.set(toFunctionSelector(fn.abi), fn);
    standardFunctions.forEach(add);
    for (const mock of mockFunctions) {
      // A missing mock artifact only leaves its functions undecoded; it must not break the review queue.
      let abi: AbiFunction | undefined;
      try {
        abi = readArtifact(mock.contract).abi.find((item): item is AbiFunction => item.type === "function" && item.name === mock.name);
      } catch {
        abi = undefined;
      }
      if (abi !== undefined) add({ abi, readings: mock.readings });
    }
  }
  return known;
}

// transferFrom(address,address,uint256) is also ERC-721's, whose last argument is a token id: read it so
// unless the target is an ERC-20 the relayer knows (as path.ts decides for NFT transfers).
const erc721TransferFrom = standard("transferFrom(address from, address to, uint256 tokenId)", { from: "address", to: "address", tokenId: "id" });
const transferFromSelector = toFunctionSelector(erc721TransferFrom.abi);

/** The call `callData` makes on `target`, decoded where the function is known. */
export function decodeCall(target: Address, callData: Hex, context: DecodeContext): DecodedCall {
  const targetInfo = context.tokens.get(target.toLowerCase());
  const base = { target: getAddress(target), ...(targetInfo ? { targetSymbol: targetInfo.symbol } : {}) };
  const calldataBytes = Math.max(0, (callData.length - 2) / 2);
  if (calldataBytes < 4) {
    return { ...base, decoded: false, calldataBytes, summary: `not decoded: no function selector (${calldataBytes} bytes of calldata)` };
  }
  const selector = callData.slice(0, 10).toLowerCase() as Hex;
  const fn = selector === transferFromSelector && targetInfo === undefined ? erc721TransferFrom : knownFunctions().get(selector);
  const notDecoded = (why: string) => ({ ...base, decoded: false as const, selector, calldataBytes, summary: `not decoded: ${why} (${calldataBytes} bytes of calldata)` });
  if (fn === undefined) return notDecoded(`unknown function ${selector}`);

  let values: readonly unknown[];
  try {
    values = decodeFunctionData({ abi: [fn.abi], data: callData }).args ?? [];
  } catch {
    return notDecoded(`the calldata does not fit ${signatureOf(fn.abi)}`);
  }
  const named = Object.fromEntries(fn.abi.inputs.map((input, i) => [input.name ?? `arg${i}`, values[i]]));
  const args = fn.abi.inputs.map((input, i) => {
    const name = input.name ?? `arg${i}`;
    return argument(name, input.type, values[i], fn.readings[name] ?? "bytes", { ...context, target, named, fn: fn.abi.name });
  });
  const shown = args.map((a) => `${a.name} ${a.type === "address" ? shortAddress(a.value as string) : (a.summaryText ?? a.text)}`);
  return {
    ...base,
    decoded: true,
    selector,
    function: fn.abi.name,
    signature: signatureOf(fn.abi),
    arguments: args.map(({ summaryText: _, ...a }) => a),
    summary: `${fn.abi.name}(${shown.join(", ")})`,
  };
}

interface ArgumentContext extends DecodeContext {
  target: Address;
  named: Record<string, unknown>;
  fn: string;
}

function argument(name: string, type: string, raw: unknown, reading: Reading, ctx: ArgumentContext): CallArgument & { summaryText?: string } {
  if (reading === "address" && typeof raw === "string") {
    const address = getAddress(raw);
    return { name, type, value: address, text: `${address}${addressNote(address, ctx)}` };
  }
  if (reading === "bool" && typeof raw === "boolean") {
    const text = ctx.fn === "setApprovalForAll" ? (raw ? "true: may move every token the vault holds of this contract" : "false: revokes the operator") : String(raw);
    return { name, type, value: raw, text, summaryText: String(raw) };
  }
  if ((reading === "target" || reading.startsWith("arg:")) && typeof raw === "bigint") {
    const token = reading === "target" ? ctx.target : (ctx.named[reading.slice(4)] as Address | undefined);
    const amount = tokenAmount(raw, token, ctx.tokens, { unlimitedAllowance: ctx.fn === "approve" || ctx.fn === "increaseAllowance" });
    return { name, type, ...amount };
  }
  if (reading === "price" && typeof raw === "bigint") {
    return { name, type, value: raw.toString(), text: `${raw} base units of the contract's payment token` };
  }
  if (Array.isArray(raw)) {
    const items = raw.map(String);
    return { name, type, value: items, text: `[${items.join(", ")}]` };
  }
  if (typeof raw === "bigint") return { name, type, value: raw.toString(), text: raw.toString() };
  const text = String(raw);
  return { name, type, value: text, text: reading === "bytes" && typeof raw === "string" ? bytesText(raw) : text };
}

/** An amount of `token`: "20,000 USDC (20000000000 base units)", or "unlimited" for a 2^256−1 allowance. */
function tokenAmount(
  amount: bigint,
  token: Address | undefined,
  tokens: ReadonlyMap<string, TokenInfo>,
  options: { unlimitedAllowance?: boolean } = {},
): Pick<CallArgument, "value" | "text" | "token" | "symbol" | "decimals" | "human" | "unlimited"> & { summaryText: string } {
  const info = token === undefined ? undefined : tokenInfoOf(token, tokens);
  const about = { value: amount.toString(), ...(token === undefined ? {} : { token: getAddress(token) }), ...(info ? { symbol: info.symbol, decimals: info.decimals } : {}) };
  if (options.unlimitedAllowance && amount === maxUint256) {
    const text = `unlimited${info ? ` ${info.symbol}` : ""} (2^256−1: no limit at all)`;
    return { ...about, unlimited: true, text, summaryText: info ? `unlimited ${info.symbol}` : "unlimited" };
  }
  if (info === undefined) {
    const text = `${amount} base units${token === undefined ? "" : ` of ${getAddress(token)} (a token the relayer does not know)`}`;
    return { ...about, text, summaryText: `${amount} base units` };
  }
  const human = formatUnits(amount, info.decimals);
  const readable = `${groupDigits(human)} ${info.symbol}`;
  return { ...about, human, text: `${readable} (${amount} base units)`, summaryText: readable };
}

/** One simulated outflow of the vault, as the relayer stores it with an execute: base units and USD (6 decimals). */
export interface StoredOutflow {
  token: string;
  amount: string;
  usd: string;
}

export interface Outflow {
  token: Address;
  amount: string;
  symbol?: string;
  decimals?: number;
  human?: string;
  /** USD value in dollars, to the cent. */
  usdValue: number;
  /** "20,000 USDC ($20,000.00)". */
  text: string;
}

/** The stored outflows in human units and USD; undefined when the request carries none. */
export function describeOutflows(stored: unknown, tokens: ReadonlyMap<string, TokenInfo>): Outflow[] | undefined {
  if (!Array.isArray(stored)) return undefined;
  return stored.filter(isStoredOutflow).map((o) => {
    const amount = BigInt(o.amount);
    const usd6 = usd6Of(o.usd);
    const info = tokenInfoOf(o.token as Address, tokens);
    const what = info ? `${groupDigits(formatUnits(amount, info.decimals))} ${info.symbol}` : `${amount} base units of ${getAddress(o.token)}`;
    return {
      token: getAddress(o.token),
      amount: o.amount,
      ...(info ? { symbol: info.symbol, decimals: info.decimals, human: formatUnits(amount, info.decimals) } : {}),
      usdValue: Number(usd6) / 1_000_000,
      text: `${what} (${usdText(usd6)})`,
    };
  });
}

function isStoredOutflow(value: unknown): value is StoredOutflow {
  if (typeof value !== "object" || value === null) return false;
  const o = value as Record<string, unknown>;
  return typeof o.token === "string" && /^0x[0-9a-fA-F]{40}$/.test(o.token) && typeof o.amount === "string" && /^\d+$/.test(o.amount) && typeof o.usd === "string" && /^\d+(\.\d{1,6})?$/.test(o.usd);
}

// USD as the relayer counts it: an integer with 6 decimals ("20000000000" is $20,000); a decimal
// string ("20000.00") is read as dollars, so that either spelling shows the right value.
function usd6Of(usd: string): bigint {
  return usd.includes(".") ? parseUnits(usd, 6) : BigInt(usd);
}

function addressNote(address: Address, ctx: ArgumentContext): string {
  if (ctx.vault !== undefined && address.toLowerCase() === ctx.vault.toLowerCase()) return " (the vault itself)";
  const token = ctx.tokens.get(address.toLowerCase());
  return token ? ` (${token.symbol})` : "";
}

/** "$20,000.00" from USD with 6 decimals, rounded to the cent. */
export function usdText(usd6: bigint): string {
  const cents = (usd6 + 5_000n) / 10_000n;
  return `$${groupDigits((cents / 100n).toString())}.${(cents % 100n).toString().padStart(2, "0")}`;
}

/** "20000.5" → "20,000.5". */
export function groupDigits(decimal: string): string {
  const [whole = "", fraction] = decimal.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

function bytesText(hex: string): string {
  const bytes = (hex.length - 2) / 2;
  if (bytes === 0) return "0x (empty)";
  return hex.length <= 66 ? `${hex} (${bytes} bytes)` : `${hex.slice(0, 66)}… (${bytes} bytes)`;
}

function signatureOf(fn: AbiFunction): string {
  return `${fn.name}(${fn.inputs.map((i) => i.type).join(",")})`;
}

function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}
