// The `relay review` screen: the list of held requests, a detail pane, approve and reject prompts,
// keyboard help, a status line; refreshed by itself. Everything it does goes through a ReviewSource.
// On a terminal the screen fills its height: the header and the footer stay put and the list scrolls
// between them, so a short terminal or a long list never pushes the header off the top.
import { Box, useApp, useBoxMetrics, useInput, useStdout, useWindowSize, type DOMElement } from "ink";
import { createElement as h, useEffect, useMemo, useRef, useState, type ReactElement } from "react";
import type { ReviewItem } from "../../../../packages/client/src/types.ts";
import { describeReview, type BotBook, type TokenBook } from "../describe.ts";
import { formatDecision, oneLine } from "../format.ts";
import { cancelFailure, formatCancelled, rejectReview } from "../reject.ts";
import type { ReviewSource } from "../source.ts";
import { ReviewDetail } from "./detail.ts";
import { Help } from "./help.ts";
import { handleKey, initialUiState, selectionOf, splitPresses, type Effect, type UiState } from "./keys.ts";
import { ReviewList, scrollWindow, type ListWindow } from "./list.ts";
import { CancelPrompt, ConfirmPrompt, ReasonPrompt } from "./prompt.ts";
import { Footer, Header, type Notice } from "./status.ts";
import { useReviewFeed } from "./use-feed.ts";

export interface ReviewAppProps {
  source: ReviewSource;
  tokens?: TokenBook;
  /** The owner's names for bots (the manifest's), shown instead of their addresses. */
  bots?: BotBook;
  /** How often the list reloads by itself. Default 5000 ms. */
  refreshMs?: number;
  /** How often to try again while the relayer is unreachable. Default 1000 ms. */
  retryMs?: number;
  /** Current time in ms (tests). */
  now?: () => number;
}

export function ReviewApp({ source, tokens, bots, refreshMs = 5000, retryMs = 1000, now = Date.now }: ReviewAppProps): ReactElement {
  const { exit } = useApp();
  const feed = useReviewFeed(source, { refreshMs, retryMs });
  const [ui, setUi] = useState<UiState>(initialUiState);
  const [opened, setOpened] = useState<ReviewItem | undefined>(undefined);
  const [notice, setNotice] = useState<Notice | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const clock = useClock(now);

  const views = useMemo(() => feed.reviews.map((item) => describeReview(item, tokens, bots)), [feed.reviews, tokens, bots]);
  const ids = views.map((v) => v.requestId);
  const selectedId = selectionOf(ui, ids);
  const selectedItem = opened?.requestId === selectedId ? opened : feed.reviews.find((r) => r.requestId === selectedId);
  const selected = selectedItem === undefined ? undefined : describeReview(selectedItem, tokens, bots);

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

  // The screen's state as the last key left it. Several key presses can arrive before React renders
  // again (a paste, a fast typist, a busy machine), and each must act on what the one before left,
  // not on the state of the last render.
  const latest = useRef(ui);
  latest.current = ui;
  useInput((input, key) => {
    for (const press of splitPresses(input, key)) {
      const now = latest.current;
      const result = handleKey({ ...now, selectedId: selectionOf(now, ids) }, ids, press.input, press.key, { canCancel: source.cancel !== undefined });
      latest.current = result.state;
      setUi(result.state);
      if (result.effect !== undefined) run(result.effect);
    }
  });

  const showDetail = ui.mode === "detail" || (ui.back === "detail" && (ui.mode === "confirm" || ui.mode === "reason" || ui.mode === "cancel"));
  const screen = useScreenHeight();
  const { columns } = useWindowSize();
  const body = useRef<DOMElement>(null);
  const bodySize = useBoxMetrics(body);
  const offset = useRef(0);
  let window: ListWindow | undefined;
  if (screen !== undefined) {
    const available = bodySize.hasMeasured ? bodySize.height : Math.max(1, screen - 3);
    // Beside the detail pane, the list keeps only the lines around the selection.
    const rows = showDetail ? Math.max(1, Math.min(3, Math.floor(available / 4))) : available;
    window = scrollWindow(views.length, selectedId === undefined ? -1 : ids.indexOf(selectedId), rows, offset.current);
    offset.current = window.offset;
  }
  const range = window !== undefined && window.rows < views.length ? { first: window.offset + 1, last: Math.min(views.length, window.offset + window.rows) } : undefined;
  return h(
    Box,
    { flexDirection: "column", ...(screen === undefined ? {} : { height: screen }) },
    h(Header, { count: views.length, connection: feed.connection, range }),
    h(
      Box,
      // flexBasis 0: the body gets what the header, the prompts and the footer leave, whatever it holds.
      { ref: body, flexDirection: "column", ...(screen === undefined ? {} : { flexGrow: 1, flexShrink: 1, flexBasis: 0, overflow: "hidden" }) },
      ui.mode === "help" ? h(Help) : h(ReviewList, { views, selectedId, now: clock, columns, ...(window === undefined ? {} : { window }) }),
      showDetail && selected !== undefined ? h(ReviewDetail, { view: selected, now: clock }) : null,
    ),
    ui.mode === "confirm" && selected !== undefined ? h(ConfirmPrompt, { summary: `${selected.requestId} (${selected.summary})` }) : null,
    ui.mode === "reason" ? h(ReasonPrompt, { value: ui.reason }) : null,
    ui.mode === "cancel" ? h(CancelPrompt, { reason: ui.reason }) : null,
    h(Footer, { notice, error: feed.error }),
  );
}

// The rows the screen may fill: one less than the terminal's (the cursor's line), tracking resizes;
// undefined when the output is not a terminal (tests, a pipe), and then everything is drawn.
function useScreenHeight(): number | undefined {
  const stdout = useStdout().stdout as Partial<NodeJS.WriteStream>;
  const { rows } = useWindowSize();
  return stdout.isTTY === true && (stdout.rows ?? 0) > 0 ? Math.max(4, rows - 1) : undefined;
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
