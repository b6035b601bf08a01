// The `relay review` screen: the list of held requests, a detail pane, approve and reject prompts,
// keyboard help, a status line; refreshed by itself. Everything it does goes through a ReviewSource.
import { Box, useApp, useInput } from "ink";
import { createElement as h, useEffect, useMemo, useState, type ReactElement } from "react";
import type { ReviewItem } from "../../../../packages/client/src/types.ts";
import { describeReview, type TokenBook } from "../describe.ts";
import { formatDecision, oneLine } from "../format.ts";
import { cancelFailure, formatCancelled, rejectReview } from "../reject.ts";
import type { ReviewSource } from "../source.ts";
import { ReviewDetail } from "./detail.ts";
import { Help } from "./help.ts";
import { effectiveSelection, handleKey, initialUiState, type Effect, type UiState } from "./keys.ts";
import { ReviewList } from "./list.ts";
import { CancelPrompt, ConfirmPrompt, ReasonPrompt } from "./prompt.ts";
import { Footer, Header, type Notice } from "./status.ts";
import { useReviewFeed } from "./use-feed.ts";

export interface ReviewAppProps {
  source: ReviewSource;
  tokens?: TokenBook;
  /** How often the list reloads by itself. Default 5000 ms. */
  refreshMs?: number;
  /** How often to try again while the relayer is unreachable. Default 1000 ms. */
  retryMs?: number;
  /** Current time in ms (tests). */
  now?: () => number;
}

export function ReviewApp({ source, tokens, refreshMs = 5000, retryMs = 1000, now = Date.now }: ReviewAppProps): ReactElement {
  const { exit } = useApp();
  const feed = useReviewFeed(source, { refreshMs, retryMs });
  const [ui, setUi] = useState<UiState>(initialUiState);
  const [opened, setOpened] = useState<ReviewItem | undefined>(undefined);
  const [notice, setNotice] = useState<Notice | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const clock = useClock(now);

  const views = useMemo(() => feed.reviews.map((item) => describeReview(item, tokens)), [feed.reviews, tokens]);
  const ids = views.map((v) => v.requestId);
  const selectedId = ui.mode === "list" ? effectiveSelection(ui, ids) : (ui.selectedId ?? effectiveSelection(ui, ids));
  const selectedItem = opened?.requestId === selectedId ? opened : feed.reviews.find((r) => r.requestId === selectedId);
  const selected = selectedItem === undefined ? undefined : describeReview(selectedItem, tokens);

  // The detail pane shows the relayer's latest copy of the review, fetched when it is opened.
  const open = (id: string): void => {
    source.detail(id).then(setOpened, (error: unknown) => setNotice({ text: oneLine(error), tone: "error" }));
  };

  // Run a decision; `run` says what the status line shows once it is done.
  const decide = (label: string, id: string, run: () => Promise<Notice>): void => {
    setBusy(true);
    setNotice({ text: `${label} ${id}…`, tone: "info" });
    run()
      .then(setNotice, (error: unknown) => setNotice({ text: `${id}: ${oneLine(error)}`, tone: "error" }))
      .finally(() => {
        setBusy(false);
        feed.refresh();
        if (ui.mode === "detail" || ui.back === "detail") open(id);
      });
  };

  const run = (effect: Effect): void => {
    if (effect.type === "quit") return exit();
    if (effect.type === "refresh") return feed.refresh();
    if (effect.type === "open") return open(effect.id);
    if (busy) return setNotice({ text: "wait for the current decision to finish", tone: "info" });
    if (effect.type === "approve") {
      return decide("Approving", effect.id, async () => {
        const response = await source.approve(effect.id);
        return { text: formatDecision(response).trimEnd(), tone: response.status === "approved" ? "success" : "info" };
      });
    }
    const { id, reason, cancel } = effect;
    decide(cancel ? "Rejecting and cancelling on-chain" : "Rejecting", id, async () => {
      const outcome = await rejectReview(source, id, reason, { cancel });
      const rejected = formatDecision(outcome.response).trimEnd();
      if (outcome.cancel === undefined) return { text: rejected, tone: "info" };
      if ("error" in outcome.cancel) return { text: cancelFailure(id, outcome.cancel), tone: "error" };
      return { text: `${rejected}; ${formatCancelled(outcome.cancel)}`, tone: "success" };
    });
  };

  useInput((input, key) => {
    const result = handleKey({ ...ui, selectedId }, ids, input, key, { canCancel: source.cancel !== undefined });
    setUi(result.state);
    if (result.effect !== undefined) run(result.effect);
  });

  const showDetail = ui.mode === "detail" || (ui.back === "detail" && (ui.mode === "confirm" || ui.mode === "reason" || ui.mode === "cancel"));
  return h(
    Box,
    { flexDirection: "column" },
    h(Header, { count: views.length, connection: feed.connection }),
    ui.mode === "help" ? h(Help) : h(ReviewList, { views, selectedId, now: clock }),
    showDetail && selected !== undefined ? h(ReviewDetail, { view: selected, now: clock }) : null,
    ui.mode === "confirm" && selected !== undefined ? h(ConfirmPrompt, { summary: `${selected.requestId} (${selected.summary})` }) : null,
    ui.mode === "reason" ? h(ReasonPrompt, { value: ui.reason }) : null,
    ui.mode === "cancel" ? h(CancelPrompt, { reason: ui.reason }) : null,
    h(Footer, { notice, error: feed.error }),
  );
}

// The current time, ticking every second so that "time left" counts down.
function useClock(now: () => number): number {
  const [time, setTime] = useState(now);
  useEffect(() => {
    const timer = setInterval(() => setTime(now()), 1000);
    return () => clearInterval(timer);
  }, [now]);
  return time;
}
