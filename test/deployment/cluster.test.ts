// The test deployment (test/support/cluster.ts): real `relay serve` processes behind real nginx,
// each answering through the proxy, restartable on its port after kill -9, and stop() ending
// exactly the processes it started.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type Cluster } from "../support/cluster.ts";
import { clusterStore } from "../relayer/deployment.ts";

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster({ instances: 3, store: clusterStore() });
}, 240_000);
afterAll(async () => cluster?.stop());

describe("startCluster", () => {
  it("serves the same API from every instance, round-robin through the proxy", async () => {
    expect(cluster.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const instance of cluster.instances) expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await fetch(`${cluster.url}/healthz`)).status).toBe(200);
    const served = new Set(cluster.proxy.accessLog().trim().split("\n").map((line) => line.split(" ")[0]));
    expect(served).toEqual(new Set(cluster.instances.map((i) => new URL(i.url).host)));
  });

  it("kill -9 ends one instance, the proxy keeps answering, and restart() brings it back on its port", async () => {
    const [first] = cluster.instances;
    const { url, pid } = first!;
    await first!.kill("SIGKILL");
    expect(first!.alive()).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
    for (let i = 0; i < 6; i++) expect((await fetch(`${cluster.url}/healthz`)).status).toBe(200);
    await first!.restart();
    expect(first!.url).toBe(url);
    expect(first!.pid).not.toBe(pid);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it("stop() ends the processes it started and removes its directories", async () => {
    const pids = cluster.instances.map((i) => i.pid);
    const dirs = cluster.instances.map((i) => i.stateDir);
    await cluster.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    expect(() => process.kill(cluster.proxy.pid, 0)).toThrow();
  });
});
