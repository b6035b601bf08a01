// A relayer restarted on another port writes its new URL into the devnet manifest (`relay serve`).
// The review screen, when its relayer URL came from that manifest, re-reads the manifest each time
// the relayer cannot be reached and moves to the URL it names: a new client and a fresh sign-in.
// A URL the owner chose (--relayer-url, RELAY_URL, a profile) is never replaced (see commands.ts).
import { RelayUnreachableError } from "../../../packages/client/src/errors.ts";
import type { ReviewSource } from "./source.ts";

export interface FollowOptions {
  /** The URL the first source talks to. */
  url: string;
  /** The relayer URL the manifest names now; undefined when it names none or cannot be read. */
  readUrl: () => string | undefined;
  /** A source for the relayer at `url` (not signed in yet). */
  sourceFor: (url: string) => ReviewSource;
}

/** A ReviewSource that moves to the manifest's relayer URL when the current one stops answering. */
export function followManifestUrl({ url, readUrl, sourceFor }: FollowOptions): ReviewSource {
  let currentUrl = url;
  let current = sourceFor(url);

  // Run a call on the current source; when the relayer is unreachable, switch to the manifest's URL
  // if it changed. The failure is still passed on: the screen shows "reconnecting" and tries again.
  async function call<T>(run: (source: ReviewSource) => Promise<T>): Promise<T> {
    try {
      return await run(current);
    } catch (error) {
      if (error instanceof RelayUnreachableError) {
        const next = readUrl()?.replace(/\/+$/, "");
        if (next !== undefined && next !== currentUrl) {
          currentUrl = next;
          current = sourceFor(next);
        }
      }
      throw error;
    }
  }

  const follower: ReviewSource = {
    signIn: (signal) => call((s) => s.signIn(signal)),
    list: (signal) => call((s) => s.list(signal)),
    detail: (requestId, signal) => call((s) => s.detail(requestId, signal)),
    approve: (requestId, signal) => call((s) => s.approve(requestId, signal)),
    reject: (requestId, reason, signal) => call((s) => s.reject(requestId, reason, signal)),
  };
  // The on-chain cancel goes to the chain, not the relayer: whichever source is current sends it.
  if (current.cancel !== undefined) follower.cancel = (review, signal) => call((s) => s.cancel!(review, signal));
  return follower;
}
