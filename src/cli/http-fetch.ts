// The relay client's `fetch` for the CLI, over node:http. A command such as `relay pay` makes one or
// two requests to the relayer and exits; the global fetch costs it more than the requests do: its
// first use loads Node's built-in undici (~13 MB and tens of ms of CPU, measured with a bare
// `new Response()`) and compiles its WebAssembly HTTP parser. node:http parses with the native
// llhttp already in the binary.
//
// It answers as fetch does for everything the client looks at (status, headers, body text; a
// network failure is "TypeError: fetch failed" with the socket's error as its cause, so the retry
// lines read as before), and hands fetch itself what it would treat specially: a redirect (fetch
// follows it), and every request when Node is told to send through HTTP(S)_PROXY (NODE_USE_ENV_PROXY,
// which node:http honours only from Node 24.5).
import type { IncomingMessage } from "node:http";
import type { FetchFunction, FetchResponse } from "../../packages/client/src/http.ts";
import { useEnvProxy } from "../chain/env-proxy.ts";

// process.getBuiltinModule, not `import … from "node:http"`: the CLI runs as an ES module, and an ES
// import of node:http reads every export, among them its lazy WebSocket getters, which load the very
// undici this file avoids.
const http = process.getBuiltinModule("node:http");
const https = () => process.getBuiltinModule("node:https");

// Keep-alive, as fetch does: a retry or a poll reuses the connection. Idle sockets do not hold the
// process open (Node unrefs them).
let agents: { http: import("node:http").Agent; https?: import("node:https").Agent } | undefined;

/** A `fetch` for `RelayClient` over node:http (see above); the global fetch where a proxy is to be used. */
export function cliFetch(): FetchFunction {
  return useEnvProxy() ? fetch : httpFetch;
}

const httpFetch: FetchFunction = (url, init) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== "http:" && target.protocol !== "https:") return resolve(fetch(url, init));
    agents ??= { http: new http.Agent({ keepAlive: true }) };
    const secure = target.protocol === "https:";
    const agent = secure ? (agents.https ??= new (https().Agent)({ keepAlive: true })) : agents.http;
    const headers = init.body === undefined ? init.headers : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) };
    const signal = init.signal;
    if (signal.aborted) return reject(signal.reason);
    const request = (secure ? https() : http).request(target, { method: init.method, headers, agent });
    const onAbort = () => request.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal.removeEventListener("abort", onAbort);
    request.on("error", (error) => {
      settle();
      reject(signal.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    request.on("response", (response: IncomingMessage) => {
      if (isRedirect(response)) {
        response.resume();
        settle();
        return resolve(fetch(url, init));
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => {
        settle();
        reject(signal.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
      });
      response.on("end", () => {
        settle();
        resolve(answer(response, Buffer.concat(chunks)));
      });
    });
    request.end(init.body);
  });

function isRedirect(response: IncomingMessage): boolean {
  const status = response.statusCode ?? 0;
  return [301, 302, 303, 307, 308].includes(status) && response.headers.location !== undefined;
}

function answer(response: IncomingMessage, body: Buffer): FetchResponse {
  return {
    status: response.statusCode ?? 0,
    headers: {
      // As fetch's Headers.get: any case, several values joined by ", ", null when absent.
      get(name: string) {
        const value = response.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    },
    // As Response.text(): UTF-8, a leading byte order mark dropped.
    text: async () => new TextDecoder().decode(body),
  };
}
