// Errors Node's HTTP parser raises before a request reaches a route: a request (headers or body)
// that did not arrive within the request timeout, headers over the size limit, bytes that are not
// HTTP. They are answered in the same `{error, code, details?}` envelope as every other error,
// written straight to the socket, which is then closed.
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { relayError, type RelayError } from "../errors.ts";

/** How long a client has to send a whole request (headers and body), and how often that is checked. */
export interface RequestTimeouts {
  requestTimeoutMs: number;
}

/** A `clientError` listener (Fastify's `clientErrorHandler`) that answers with the error envelope. */
export function envelopeClientErrors(timeouts: RequestTimeouts) {
  return (error: Error & { code?: string }, socket: Duplex): void => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    // A response already under way cannot be replaced; only close the connection then.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) socket.write(rawResponse(asRelayError(error, timeouts)));
    socket.destroy();
  };
}

function asRelayError(error: Error & { code?: string }, timeouts: RequestTimeouts): RelayError {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return relayError("REQUEST_TIMEOUT", `the whole request (headers and body) must arrive within ${timeouts.requestTimeoutMs} ms`);
    case "HPE_HEADER_OVERFLOW":
      return relayError("INVALID_REQUEST", "the request headers are too large");
    default:
      return relayError("INVALID_REQUEST", "malformed HTTP request");
  }
}

function rawResponse(error: RelayError): string {
  const body = JSON.stringify(error.toBody());
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}
