// The Sign-In with Ethereum routes of the owner dashboard (DESIGN.md section 6):
//   POST /v1/auth/nonce                          → 200 {nonce, expiresAt}
//   POST /v1/auth/login {message, signature}     → 200 {token, address, expiresAt}
// A malformed login body is 400 INVALID_REQUEST naming the field; a refused login is 401
// UNAUTHORIZED from OwnerAuth. Both answers are marked uncacheable: they carry secrets.
import type { FastifyInstance } from "fastify";
import { relayError } from "../../errors.ts";
import type { OwnerAuth } from "../auth/owner-auth.ts";

/** Longest SIWE message accepted, in characters; real ones are well under 1000. */
export const MAX_SIWE_MESSAGE_LENGTH = 4096;
/** Longest signature accepted: 65 bytes as 0x hex is 132; a little room for a clear error. */
const MAX_SIGNATURE_LENGTH = 256;

function invalid(details: string): never {
  throw relayError("INVALID_REQUEST", details);
}

function stringField(body: Record<string, unknown>, field: string, maxLength: number): string {
  const value = body[field];
  if (value === undefined || value === null) invalid(`${field} is required`);
  if (typeof value !== "string") invalid(`${field} must be a string`);
  if (value.length > maxLength) invalid(`${field} must be at most ${maxLength} characters`);
  return value;
}

/** The `{message, signature}` of a login body, or a thrown 400 naming the first bad field. */
export function parseLoginBody(body: unknown): { message: string; signature: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) invalid("body must be a JSON object");
  const record = body as Record<string, unknown>;
  return {
    message: stringField(record, "message", MAX_SIWE_MESSAGE_LENGTH),
    signature: stringField(record, "signature", MAX_SIGNATURE_LENGTH),
  };
}

export function registerAuthRoutes(app: FastifyInstance, auth: OwnerAuth): void {
  app.post("/v1/auth/nonce", async (_request, reply) => {
    void reply.header("cache-control", "no-store");
    return auth.issueNonce();
  });

  app.post("/v1/auth/login", async (request, reply) => {
    const { message, signature } = parseLoginBody(request.body);
    const session = await auth.login(message, signature);
    void reply.header("cache-control", "no-store");
    return session;
  });
}
