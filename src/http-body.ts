// A request's body as text, refused past a size: the loopback servers built on node:http (the
// devnet's JSON-RPC endpoint, relay agents).
import type { IncomingMessage } from "node:http";

/** The body of `req`; past `maxBytes` the request is destroyed and the promise rejects with `tooLarge()`. */
export function readBody(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(tooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
