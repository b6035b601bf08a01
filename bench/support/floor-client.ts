// The floor bench's HTTP client (bench/floor.bench.ts), in its own process so that its CPU is not
// counted: warms up, tells the parent, then on "go" sends N payment bodies over keep-alive
// connections, IN_FLIGHT at a time, and tells the parent when all are answered.
import { Agent, request } from "node:http";

const [url, total, inFlight] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const body = process.env.FLOOR_BODY!;
const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
const target = new URL(url);

function post(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.on("data", () => {});
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function run(count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next++ < count) await post(); }));
}

await run(2000);
process.send!("ready");
process.once("message", async () => {
  await run(total);
  process.send!("done");
  agent.destroy();
  process.disconnect();
});
