// Sign-In with Ethereum (EIP-4361) messages as text: `buildSiweMessage` writes one, and
// `parseSiweMessage` reads one back, refusing anything that does not follow the EIP's grammar
// exactly, with an error naming the line and field. Shared by the relayer and the client.
//
// The layout, line by line (optional parts in brackets):
//   [scheme://]domain wants you to sign in with your Ethereum account:
//   address                                   (EIP-55)
//   <empty line>
//   [statement                                (one line)
//   ]<empty line>
//   URI: uri
//   Version: 1
//   Chain ID: chain-id
//   Nonce: nonce
//   Issued At: date-time
//   [Expiration Time: date-time]
//   [Not Before: date-time]
//   [Request ID: request-id]
//   [Resources:
//   - uri  (zero or more)]
// Lines end with a bare LF and the last line has none.
import { getAddress, type Address } from "viem";
import {
  chainIdProblem,
  chainIdTextProblem,
  dateTimeProblem,
  domainProblem,
  nonceProblem,
  requestIdProblem,
  schemeProblem,
  statementProblem,
  uriProblem,
} from "./siwe-grammar.ts";

/** A parsed (or about to be written) SIWE message. Times are RFC 3339 text exactly as signed. */
export interface SiweMessage {
  scheme?: string;
  domain: string;
  address: Address;
  statement?: string;
  uri: string;
  version: "1";
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** What `buildSiweMessage` takes: `version` defaults to "1", times may be Dates, any address case. */
export interface SiweMessageFields extends Omit<SiweMessage, "version" | "address" | "issuedAt" | "expirationTime" | "notBefore"> {
  version?: "1";
  address: string;
  issuedAt: string | Date;
  expirationTime?: string | Date;
  notBefore?: string | Date;
}

const HEADER_SUFFIX = " wants you to sign in with your Ethereum account:";

// ---- addresses (viem's EIP-55 checksum, so the package needs no native keccak) ----------------

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** `0x` followed by exactly 40 hex digits, in any case. */
function isHexAddress(value: string): boolean {
  return HEX_ADDRESS.test(value);
}

/** The EIP-55 form of a `0x` + 40 hex digit address, whatever its case. */
function toChecksumAddress(value: string): Address {
  return getAddress(value.toLowerCase());
}

/** An address in any single case, or mixed case that is its EIP-55 checksum (as SPEC.md asks). */
function parseAddress(value: string): { ok: true; address: Address } | { ok: false; reason: "format" | "checksum" } {
  if (!isHexAddress(value)) return { ok: false, reason: "format" };
  const address = toChecksumAddress(value);
  const digits = value.slice(2);
  const mixed = digits !== digits.toLowerCase() && digits !== digits.toUpperCase();
  return mixed && address !== value ? { ok: false, reason: "checksum" } : { ok: true, address };
}

/** The `domain` and `uri` a relayer at `baseUrl` expects: its host[:port], and the URL without a trailing slash. */
export function siweTarget(baseUrl: string): { domain: string; uri: string } {
  const url = new URL(baseUrl);
  return { domain: url.host, uri: url.toString().replace(/\/+$/, "") };
}

// ---- building ---------------------------------------------------------------------------------

function invalidField(field: string, problem: string): never {
  throw new Error(`cannot build SIWE message: ${field} ${problem}`);
}

function check(field: string, value: string, problemOf: (value: string) => string | undefined): string {
  const problem = problemOf(value);
  if (problem !== undefined) invalidField(field, problem);
  return value;
}

function timeText(field: string, value: string | Date): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) invalidField(field, "is an invalid Date");
    return value.toISOString();
  }
  return check(field, value, dateTimeProblem);
}

/** Checks every field and returns the message with times as text and the address in EIP-55 form. */
function normalize(fields: SiweMessageFields): SiweMessage {
  const address = parseAddress(fields.address);
  if (!address.ok) invalidField("address", address.reason === "format" ? "must be 0x followed by 40 hex digits" : "has a bad EIP-55 checksum");
  if (fields.version !== undefined && fields.version !== "1") invalidField("version", 'must be "1"');
  const chainProblem = chainIdProblem(fields.chainId);
  if (chainProblem !== undefined) invalidField("chainId", chainProblem);
  const message: SiweMessage = {
    domain: check("domain", fields.domain, domainProblem),
    address: address.address,
    uri: check("uri", fields.uri, uriProblem),
    version: "1",
    chainId: fields.chainId,
    nonce: check("nonce", fields.nonce, nonceProblem),
    issuedAt: timeText("issuedAt", fields.issuedAt),
  };
  if (fields.scheme !== undefined) message.scheme = check("scheme", fields.scheme, schemeProblem);
  if (fields.statement !== undefined) message.statement = check("statement", fields.statement, statementProblem);
  if (fields.expirationTime !== undefined) message.expirationTime = timeText("expirationTime", fields.expirationTime);
  if (fields.notBefore !== undefined) message.notBefore = timeText("notBefore", fields.notBefore);
  if (fields.requestId !== undefined) message.requestId = check("requestId", fields.requestId, requestIdProblem);
  if (fields.resources !== undefined) {
    message.resources = fields.resources.map((resource, i) => check(`resources[${i}]`, resource, uriProblem));
  }
  return message;
}

/** The EIP-4361 text of a message. Throws an Error naming the first invalid field. */
export function buildSiweMessage(fields: SiweMessageFields): string {
  const m = normalize(fields);
  const origin = m.scheme === undefined ? m.domain : `${m.scheme}://${m.domain}`;
  const lines = [`${origin}${HEADER_SUFFIX}`, m.address, ""];
  if (m.statement !== undefined) lines.push(m.statement);
  lines.push("");
  lines.push(`URI: ${m.uri}`, `Version: ${m.version}`, `Chain ID: ${m.chainId}`, `Nonce: ${m.nonce}`, `Issued At: ${m.issuedAt}`);
  if (m.expirationTime !== undefined) lines.push(`Expiration Time: ${m.expirationTime}`);
  if (m.notBefore !== undefined) lines.push(`Not Before: ${m.notBefore}`);
  if (m.requestId !== undefined) lines.push(`Request ID: ${m.requestId}`);
  if (m.resources !== undefined) lines.push("Resources:", ...m.resources.map((resource) => `- ${resource}`));
  return lines.join("\n");
}

// ---- parsing ----------------------------------------------------------------------------------

/** A line for an error message: quoted, and cut when long. */
function quote(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 79)}…` : line);
}

/** Walks the message's lines; every failure names the line it is about. */
class Lines {
  readonly #lines: string[];
  #next = 0;

  constructor(text: string) {
    this.#lines = text.split("\n");
  }

  get done(): boolean {
    return this.#next >= this.#lines.length;
  }

  peek(): string | undefined {
    return this.#lines[this.#next];
  }

  /** The next line; fails with `expected` when the message has ended. */
  take(expected: string): string {
    const line = this.#lines[this.#next];
    if (line === undefined) this.fail(`the message ends where ${expected} was expected`, this.#next + 1);
    this.#next++;
    return line;
  }

  /** Fails about the line last taken (or the given 1-based line). */
  fail(problem: string, lineNumber = this.#next): never {
    throw new Error(`invalid SIWE message, line ${lineNumber}: ${problem}`);
  }

  /** Takes `<label>: <value>`, checks the value and returns it. */
  tagged(label: string, problemOf: (value: string) => string | undefined): string {
    const prefix = `${label}: `;
    const line = this.take(`"${prefix}…"`);
    if (!line.startsWith(prefix)) this.fail(`expected "${prefix}…", got ${quote(line)}`);
    const value = line.slice(prefix.length);
    const problem = problemOf(value);
    if (problem !== undefined) this.fail(`${label} ${problem}, got ${quote(value)}`);
    return value;
  }

  /** Like `tagged`, when the next line carries `label`; otherwise undefined and nothing is taken. */
  optional(label: string, problemOf: (value: string) => string | undefined): string | undefined {
    return this.peek()?.startsWith(`${label}: `) ? this.tagged(label, problemOf) : undefined;
  }

  emptyLine(after: string): void {
    const line = this.take(`an empty line after ${after}`);
    if (line !== "") this.fail(`expected an empty line after ${after}, got ${quote(line)}`);
  }
}

function addressProblem(value: string): string | undefined {
  if (!isHexAddress(value)) return "must be 0x followed by 40 hex digits";
  const checksummed = toChecksumAddress(value);
  return checksummed === value ? undefined : `must be in EIP-55 checksum case (${checksummed})`;
}

function parseHeader(lines: Lines, message: Partial<SiweMessage>): void {
  const header = lines.take("the header");
  if (!header.endsWith(HEADER_SUFFIX)) lines.fail(`expected "<domain>${HEADER_SUFFIX}", got ${quote(header)}`);
  let origin = header.slice(0, -HEADER_SUFFIX.length);
  const schemeEnd = origin.indexOf("://");
  if (schemeEnd !== -1) {
    const scheme = origin.slice(0, schemeEnd);
    const problem = schemeProblem(scheme);
    if (problem !== undefined) lines.fail(`scheme ${problem}, got ${quote(scheme)}`);
    message.scheme = scheme;
    origin = origin.slice(schemeEnd + 3);
  }
  const problem = domainProblem(origin);
  if (problem !== undefined) lines.fail(`domain ${problem}, got ${quote(origin)}`);
  message.domain = origin;
}

/**
 * Reads an EIP-4361 message. Throws an Error naming the line and field at the first departure from
 * the grammar: a missing or misplaced line, an unknown line, or a field value that is not valid.
 */
export function parseSiweMessage(text: string): SiweMessage {
  const lines = new Lines(text);
  const head: Partial<SiweMessage> = {};
  parseHeader(lines, head);

  const address = lines.take("the address");
  const problem = addressProblem(address);
  if (problem !== undefined) lines.fail(`address ${problem}, got ${quote(address)}`);
  lines.emptyLine("the address");
  let statement: string | undefined;
  if (lines.peek() !== "") {
    statement = lines.take("the statement or an empty line");
    const statementIssue = statementProblem(statement);
    if (statementIssue !== undefined) lines.fail(`statement ${statementIssue}`);
    lines.emptyLine("the statement");
  } else {
    lines.take("an empty line");
  }

  const message: SiweMessage = {
    ...head,
    domain: head.domain!,
    address: address as Address,
    ...(statement === undefined ? {} : { statement }),
    uri: lines.tagged("URI", uriProblem),
    version: lines.tagged("Version", (v) => (v === "1" ? undefined : 'must be "1"')) as "1",
    chainId: Number(lines.tagged("Chain ID", chainIdTextProblem)),
    nonce: lines.tagged("Nonce", nonceProblem),
    issuedAt: lines.tagged("Issued At", dateTimeProblem),
  };
  const expirationTime = lines.optional("Expiration Time", dateTimeProblem);
  if (expirationTime !== undefined) message.expirationTime = expirationTime;
  const notBefore = lines.optional("Not Before", dateTimeProblem);
  if (notBefore !== undefined) message.notBefore = notBefore;
  const requestId = lines.optional("Request ID", requestIdProblem);
  if (requestId !== undefined) message.requestId = requestId;
  if (lines.peek() === "Resources:") {
    lines.take("Resources");
    message.resources = [];
    while (!lines.done) {
      const line = lines.take("a resource");
      if (!line.startsWith("- ")) lines.fail(`expected a resource line "- <uri>", got ${quote(line)}`);
      const resourceProblem = uriProblem(line.slice(2));
      if (resourceProblem !== undefined) lines.fail(`resource ${resourceProblem}, got ${quote(line.slice(2))}`);
      message.resources.push(line.slice(2));
    }
  }
  if (!lines.done) {
    const line = lines.take("the end");
    lines.fail(`unexpected line ${quote(line)}: after Issued At only Expiration Time, Not Before, Request ID and Resources may follow, in that order`);
  }
  return message;
}
