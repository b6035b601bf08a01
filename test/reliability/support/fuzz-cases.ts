// Generators for the HTTP fuzzer: hostile requests to the relayer built from valid signed bodies
// that the relayer must refuse anyway (a bot the vault does not know, an amount over the bot's
// per-payment cap, a deadline already passed), mutated field by field and byte by byte, with odd
// content types and Idempotency-Key headers; plus arbitrary JSON, arbitrary bytes and junk GETs.
// Every case is built so that no well-formed variant can ever be executed.
import fc from "fast-check";

export interface FuzzCase {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What the case is, for failure reports. */
  label: string;
}

/** A valid signed body that the relayer refuses for a reason other than its shape. */
export interface BaseBody {
  path: "/v1/payments" | "/v1/execute" | "/v1/swap";
  body: object;
  why: string;
}

const TWO_256 = (1n << 256n).toString();

/** Values of the wrong type or out of range, for any field. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null, true, false, 0, -1, 1.5, 1e308, -0, "", " ", "0", "-1", "1e6", "0x10", "1_000", "١٢٣",
    TWO_256, `-${TWO_256}`, (1n << 255n).toString(), "115792089237316195423570985008687907853269984665640564039457584007913129639936",
    [], {}, [1, 2], { "": "" }, "0x", "0x0", `0x${"0".repeat(40)}`, `0x${"g".repeat(40)}`, `0x${"f".repeat(130)}`,
    "\u0000", "\ud800", "<script>", "${7*7}", "' OR 1=1 --", "../../etc/passwd", "x".repeat(70_000),
  ),
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(1n << 300n), max: 1n << 300n }).map((n) => n.toString()),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Keys that try to reach prototypes: refused as a body, never merged into one. */
const pollutingFragments = [
  '"__proto__":{"polluted":true}',
  '"constructor":{"prototype":{"polluted":true}}',
  '"__proto__":{"__proto__":{"polluted":true}}',
  '"prototype":{"polluted":true}',
  '"metadata":{"__proto__":{"polluted":"yes"}}',
  '"metadata":{"constructor":{"prototype":{"polluted":"yes"}}}',
];

/** Bytes that are not UTF-8: lone continuation bytes, overlong forms, surrogates, truncated sequences. */
const invalidUtf8: fc.Arbitrary<number[]> = fc.constantFrom([0xff], [0xfe, 0xff], [0x80], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x00]);

/** Mostly JSON (so that most cases reach validation and the checks behind it), else anything. */
const contentTypes: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8"), weight: 8 },
  {
    arbitrary: fc.constantFrom<string | undefined>(
      "application/json; charset=latin1",
      "application/json; charset=utf-16",
      "APPLICATION/JSON",
      "application/json, text/plain",
      "application/jsonx",
      "application/ld+json",
      "text/plain",
      "text/json",
      "application/xml",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=xyz",
      "",
      undefined,
    ),
    weight: 2,
  },
);

const headerText = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });

const idempotencyHeaders = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 4 },
  fc.uuid().map((u) => u),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid().map((u) => ` ${u} `),
  fc.tuple(fc.uuid(), fc.uuid()).map(([a, b]) => `${a}, ${b}`),
  fc.constantFrom("", "not-a-uuid", "00000000-0000-0000-0000-000000000000", "{00000000-0000-0000-0000-000000000000}", "x".repeat(8_000)),
  headerText,
);

type Mutation = (body: Record<string, unknown>, fields: string[]) => { text?: string; bytes?: Uint8Array; label: string };

function mutations(): fc.Arbitrary<Mutation> {
  const field = (fields: string[], i: number) => fields[i % fields.length]!;
  return fc.oneof(
    fc.nat().map((i): Mutation => (body, fields) => {
      const name = field(fields, i);
      const { [name]: _removed, ...rest } = body;
      return { text: JSON.stringify(rest), label: `without ${name}` };
    }),
    fc.tuple(fc.nat(), oddValue).map(([i, value]): Mutation => (body, fields) => {
      const name = field(fields, i);
      return { text: JSON.stringify({ ...body, [name]: value }), label: `${name} = ${JSON.stringify(value)?.slice(0, 60)}` };
    }),
    fc.tuple(fc.nat(), fc.nat(), oddValue).map(([i, j, value]): Mutation => (body, fields) => {
      const a = field(fields, i);
      const b = field(fields, j);
      return { text: JSON.stringify({ ...body, [a]: value, [b]: body[a] }), label: `${a} = odd, ${b} = ${a}'s value` };
    }),
    fc.tuple(fc.constantFrom(...pollutingFragments), fc.boolean()).map(([fragment, first]): Mutation => (body) => {
      const text = JSON.stringify(body);
      return { text: first ? `{${fragment},${text.slice(1)}` : `${text.slice(0, -1)},${fragment}}`, label: `with ${fragment}` };
    }),
    fc.tuple(fc.nat(), oddValue, fc.boolean()).map(([i, value, before]): Mutation => (body, fields) => {
      // The same key twice in the raw text: JSON.parse keeps the last.
      const name = field(fields, i);
      const dup = `${JSON.stringify(name)}:${JSON.stringify(value) ?? "null"}`;
      const text = JSON.stringify(body);
      return { text: before ? `{${dup},${text.slice(1)}` : `${text.slice(0, -1)},${dup}}`, label: `duplicate key ${name} ${before ? "before" : "after"}` };
    }),
    fc.tuple(fc.nat(), invalidUtf8).map(([at, bad]): Mutation => (body) => {
      const bytes = Buffer.from(JSON.stringify(body), "utf8");
      // Into a string value when possible: just after an opening quote.
      const quotes = [...bytes.keys()].filter((k) => bytes[k] === 0x22);
      const cut = (quotes[at % quotes.length] ?? 0) + 1;
      return { bytes: Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]), label: `invalid UTF-8 ${bad.map((b) => b.toString(16)).join(" ")}` };
    }),
    fc.nat().map((at): Mutation => (body) => {
      const text = JSON.stringify(body);
      return { text: text.slice(0, at % text.length), label: `truncated at ${at % text.length}` };
    }),
    fc.nat().map((i): Mutation => (body, fields) => {
      // The whole body nested one level down, or wrapped in an array.
      const name = field(fields, i);
      return { text: i % 2 === 0 ? JSON.stringify([body]) : JSON.stringify({ [name]: body }), label: "wrapped" };
    }),
  );
}

/** POSTs: a base body with one to three mutations layered, odd content type and Idempotency-Key. */
export function mutatedPosts(bases: readonly BaseBody[]): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      base: fc.constantFrom(...bases),
      steps: fc.array(mutations(), { minLength: 0, maxLength: 3 }),
      contentType: contentTypes,
      idempotencyKey: idempotencyHeaders,
      dropBodyKey: fc.boolean(),
    })
    .map(({ base, steps, contentType, idempotencyKey, dropBodyKey }) => {
      const signed = base.body as Record<string, unknown>;
      let body: Record<string, unknown> = dropBodyKey ? omit(signed, "idempotencyKey") : signed;
      let out: { text?: string; bytes?: Uint8Array; label: string } = { text: JSON.stringify(body), label: "" };
      const labels: string[] = [];
      for (const step of steps) {
        out = step(body, Object.keys(body));
        labels.push(out.label);
        if (out.bytes !== undefined || out.text === undefined) break;
        try {
          const parsed = JSON.parse(out.text) as unknown;
          if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) break;
          body = parsed as Record<string, unknown>;
        } catch {
          break;
        }
      }
      return {
        method: "POST",
        path: base.path,
        headers: headers(contentType, idempotencyKey),
        body: out.bytes ?? out.text ?? "",
        label: `${base.path} (${base.why}) ${labels.join("; ")} | content-type ${contentType ?? "none"} | idempotency-key ${idempotencyKey?.slice(0, 40) ?? "none"}`,
      } satisfies FuzzCase;
    });
}

/** POSTs of arbitrary JSON or arbitrary bytes to the intent endpoints. */
export function arbitraryPosts(): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      path: fc.constantFrom("/v1/payments", "/v1/execute", "/v1/swap"),
      body: fc.oneof(
        fc.json({ maxDepth: 4 }),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ chainId: 84532, vaultAddress: v, bot: v, amount: v, signature: v })),
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ unit: "binary", maxLength: 200 }),
      ),
      contentType: contentTypes,
      idempotencyKey: idempotencyHeaders,
    })
    .map(({ path, body, contentType, idempotencyKey }) => ({
      method: "POST" as const,
      path,
      headers: headers(contentType, idempotencyKey),
      body,
      label: `${path} arbitrary ${typeof body === "string" ? JSON.stringify(body.slice(0, 80)) : `bytes[${body.length}]`} | content-type ${contentType ?? "none"}`,
    }));
}

/** A path segment that is certainly not a 0x address. */
const notAnAddress = fc.string({ maxLength: 120 }).filter((s) => !/^0x[0-9a-fA-F]{40}$/.test(s));

/** GETs with junk ids, junk addresses, junk query strings and broken percent-encoding. */
export function junkGets(vault: string): fc.Arbitrary<FuzzCase> {
  const seg = notAnAddress.map(encodeURIComponent);
  return fc
    .oneof(
      fc.tuple(fc.constantFrom("payments", "execute", "swap"), fc.string({ maxLength: 200 })).map(([kind, id]) => `/v1/${kind}/${encodeURIComponent(id)}`),
      fc.tuple(seg, seg).map(([v, t]) => `/v1/vault/${v}/balance/${t}`),
      seg.map((v) => `/v1/vault/${v}/info`),
      fc.tuple(seg, seg, seg).map(([v, b, t]) => `/v1/vault/${v}/bot/${b}/destination/${t}`),
      notAnAddress.map((t) => `/v1/vault/${vault}/balances?tokens=${encodeURIComponent(t)}`),
      fc.string({ maxLength: 30 }).filter((c) => c !== "" && c !== "84532").map((c) => `/v1/vault/${vault}/info?chainId=${encodeURIComponent(c)}`),
      fc.constantFrom("/v1/payments/%", "/v1/payments/%ZZ", "/v1/vault/%E0%A4%A/info", "/v1/swap/%C0%80", `/v1/execute/${"a".repeat(5_000)}`, "/v1/payments/..%2f..%2fetc%2fpasswd"),
    )
    .map((path) => ({ method: "GET" as const, path, headers: {}, label: `GET ${path.slice(0, 120)}` }));
}

function headers(contentType: string | undefined, idempotencyKey: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (contentType !== undefined) out["content-type"] = contentType;
  if (idempotencyKey !== undefined) out["idempotency-key"] = idempotencyKey;
  return out;
}

function omit(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = body;
  return rest;
}
