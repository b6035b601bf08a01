// The review screen's source follows the manifest's relayer URL: when the relayer it talks to is
// unreachable and the manifest names another URL, the next call goes there (and signs in there).
import { describe, expect, it } from "vitest";
import { RelayUnreachableError } from "../../../packages/client/src/errors.ts";
import { followManifestUrl } from "../../../src/cli/review/follow-manifest.ts";
import { CancellingSource, MemorySource, heldPayment } from "./support/memory-source.ts";

describe("followManifestUrl", () => {
  function setup(manifestUrl: () => string | undefined) {
    const relayers = new Map<string, MemorySource>([
      ["http://127.0.0.1:1000", new CancellingSource([heldPayment("req_old", 1)])],
      ["http://127.0.0.1:2000", new CancellingSource([heldPayment("req_new", 2)])],
    ]);
    const built: string[] = [];
    const source = followManifestUrl({
      url: "http://127.0.0.1:1000",
      readUrl: manifestUrl,
      sourceFor: (url) => {
        built.push(url);
        return relayers.get(url)!;
      },
    });
    return { source, relayers, built };
  }

  it("moves to the manifest's new URL after a failed call, and stays there", async () => {
    let url: string | undefined = "http://127.0.0.1:1000";
    const { source, relayers, built } = setup(() => url);
    expect((await source.list()).map((r) => r.requestId)).toEqual(["req_old"]);

    relayers.get("http://127.0.0.1:1000")!.down = true;
    url = undefined; // between the stop and the restart the manifest names no relayer
    await expect(source.list()).rejects.toBeInstanceOf(RelayUnreachableError);
    expect(built).toEqual(["http://127.0.0.1:1000"]);

    url = "http://127.0.0.1:2000/";
    await expect(source.list()).rejects.toBeInstanceOf(RelayUnreachableError);
    expect((await source.list()).map((r) => r.requestId)).toEqual(["req_new"]);
    await source.approve("req_new");
    expect(relayers.get("http://127.0.0.1:2000")!.decisions).toEqual([{ id: "req_new", action: "approve" }]);
    expect(built).toEqual(["http://127.0.0.1:1000", "http://127.0.0.1:2000"]);
  });

  it("keeps the URL while the manifest names the same one, and passes other failures on without moving", async () => {
    const { source, relayers, built } = setup(() => "http://127.0.0.1:1000");
    relayers.get("http://127.0.0.1:1000")!.down = true;
    await expect(source.list()).rejects.toBeInstanceOf(RelayUnreachableError);
    relayers.get("http://127.0.0.1:1000")!.down = false;
    await expect(source.detail("req_missing")).rejects.toThrow(/no review req_missing/);
    expect(built).toEqual(["http://127.0.0.1:1000"]);
    expect(source.cancel).toBeTypeOf("function");
  });
});
