// Request bodies as JSON. Like Fastify's own parser, a body with a `__proto__` key, or with a
// `constructor` key whose value is an object holding a `prototype` key, is refused at any depth
// (prototype poisoning: such keys are harmless in JSON.parse's output but not once copied with
// Object.assign or a spread). Fastify's parser scans every body's text with two regular expressions
// for those keys; here the text is looked at with three plain searches and the parsed value is
// walked only when one of the keys could be in it: spelled out, or with a `\u` escape (the only
// escape that can stand for a letter or `_`).
import type { FastifyRequest } from "fastify";
import { relayError } from "../errors.ts";

/** A content-type parser (parseAs "string") for application/json. */
export function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void {
  const text = typeof body === "string" ? body : body.toString("utf8");
  if (text.length === 0) return done(relayError("INVALID_REQUEST", "body is empty"));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return done(relayError("INVALID_REQUEST", "body is not valid JSON"));
  }
  if (mayHidePoison(text) && isPoisoned(value)) return done(relayError("INVALID_REQUEST", "body is not valid JSON"));
  done(null, value);
}

function mayHidePoison(text: string): boolean {
  return text.includes("__proto__") || text.includes("constructor") || text.includes("\\u");
}

/** Whether any object in `value` has an own `__proto__`, or an own `constructor` object with an own `prototype`. */
export function isPoisoned(value: unknown): boolean {
  // Iterative: a 64 KiB body can nest tens of thousands of levels deep.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    if (Object.hasOwn(node, "__proto__")) return true;
    const ctor = Object.hasOwn(node, "constructor") ? (node as { constructor: unknown }).constructor : undefined;
    if (typeof ctor === "object" && ctor !== null && Object.hasOwn(ctor, "prototype")) return true;
    for (const item of Object.values(node)) pending.push(item);
  }
  return false;
}
