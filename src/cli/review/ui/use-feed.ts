// The review list kept fresh: loaded at start, again every `refreshMs`, and at once on `refresh()`.
// When the relayer cannot be reached the feed says "reconnecting" and tries again every `retryMs`
// until it answers (a restarted relayer is picked up by itself; the source signs in again on 401).
import { useCallback, useEffect, useState } from "react";
import { RelayUnreachableError } from "../../../../packages/client/src/errors.ts";
import type { ReviewItem } from "../../../../packages/client/src/types.ts";
import type { ReviewSource } from "../source.ts";
import { oneLine } from "../format.ts";

export type Connection = "connecting" | "online" | "reconnecting";

export interface Feed {
  reviews: ReviewItem[];
  connection: Connection;
  /** The last failure, in one line, until the next successful load. */
  error: string | undefined;
  refresh(): void;
}

export interface FeedOptions {
  refreshMs: number;
  retryMs: number;
}

export function useReviewFeed(source: ReviewSource, { refreshMs, retryMs }: FeedOptions): Feed {
  const [reviews, setReviews] = useState<ReviewItem[]>([]);
  const [connection, setConnection] = useState<Connection>("connecting");
  const [error, setError] = useState<string | undefined>(undefined);
  // Bumping the generation restarts the loop below, which loads at once.
  const [generation, setGeneration] = useState(0);
  const refresh = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      let delay = refreshMs;
      try {
        const list = await source.list(controller.signal);
        if (controller.signal.aborted) return;
        setReviews(list);
        setConnection("online");
        setError(undefined);
      } catch (failure) {
        if (controller.signal.aborted) return;
        if (failure instanceof RelayUnreachableError) {
          setConnection("reconnecting");
          delay = retryMs;
        }
        setError(oneLine(failure));
      }
      timer = setTimeout(() => void load(), delay);
    };
    void load();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [source, refreshMs, retryMs, generation]);

  return { reviews, connection, error, refresh };
}

