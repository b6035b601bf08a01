// The review screen's keyboard, as a pure function: the current mode and a key press give the next
// mode and, sometimes, something to do (approve, reject, refresh, open, quit). The App runs the effects.
// Rejecting asks for a reason, then (when the source can) whether to cancel the intent on-chain too.
import type { Key } from "ink";

export type Mode = "list" | "detail" | "help" | "confirm" | "reason" | "cancel";

export interface UiState {
  mode: Mode;
  /** The selected review's id. */
  selectedId: string | undefined;
  /** The rejection reason typed so far (kept while the cancel question is asked). */
  reason: string;
  /** Where help and the prompts return to. */
  back: "list" | "detail";
}

export type Effect =
  | { type: "open"; id: string }
  | { type: "approve"; id: string }
  | { type: "reject"; id: string; reason: string; cancel: boolean }
  | { type: "refresh" }
  | { type: "quit" };

export const initialUiState: UiState = { mode: "list", selectedId: undefined, reason: "", back: "list" };

/** The selected id if it is still listed, else the first listed one. */
export function effectiveSelection(state: UiState, ids: readonly string[]): string | undefined {
  return state.selectedId !== undefined && ids.includes(state.selectedId) ? state.selectedId : ids[0];
}

/** The review a state acts on: in the list, the selection still listed; elsewhere the one it opened. */
export function selectionOf(state: UiState, ids: readonly string[]): string | undefined {
  return state.mode === "list" ? effectiveSelection(state, ids) : (state.selectedId ?? effectiveSelection(state, ids));
}

export interface KeyOptions {
  /** The source can cancel an intent on-chain: after the reason, ask whether to. */
  canCancel?: boolean;
}

export function handleKey(state: UiState, ids: readonly string[], input: string, key: Key, options: KeyOptions = {}): { state: UiState; effect?: Effect } {
  switch (state.mode) {
    case "help":
      return { state: { ...state, mode: state.back } };
    case "confirm":
      return onConfirm(state, input, key);
    case "reason":
      return onReason(state, input, key, options.canCancel === true);
    case "cancel":
      return onCancel(state, input, key);
    default:
      return onBrowse(state, ids, input, key);
  }
}

/**
 * One read of the terminal as the key presses it holds. Ink reports a read as one input: a paste, or
 * text typed faster than the screen reads it, can end in (or hold) Enter, which Ink then passes as
 * text ("hostile memo\r") rather than as the Enter key. Each line break becomes an Enter of its own,
 * and the text between them stays one input (a paste into the reason is still text).
 */
export function splitPresses(input: string, key: Key): Array<{ input: string; key: Key }> {
  if (input.length < 2 || !/[\r\n]/.test(input)) return [{ input, key }];
  const presses: Array<{ input: string; key: Key }> = [];
  for (const [i, text] of input.split(/\r\n|\r|\n/).entries()) {
    if (i > 0) presses.push({ input: "", key: { ...key, return: true } });
    if (text !== "") presses.push({ input: text, key });
  }
  return presses;
}

function onBrowse(state: UiState, ids: readonly string[], input: string, key: Key): { state: UiState; effect?: Effect } {
  const current = effectiveSelection(state, ids);
  const here = state.mode === "detail" ? "detail" : "list";
  if ((key.ctrl && input === "r") || input === "R") return { state, effect: { type: "refresh" } };
  if (key.ctrl) return { state };
  if (input === "q") return { state, effect: { type: "quit" } };
  if (input === "?") return { state: { ...state, mode: "help", back: here } };
  if (key.upArrow || input === "k") return { state: { ...state, selectedId: step(ids, current, -1) } };
  if (key.downArrow || input === "j") return { state: { ...state, selectedId: step(ids, current, +1) } };
  if (state.mode === "detail" && (key.escape || key.leftArrow || key.backspace)) return { state: { ...state, mode: "list" } };
  if (current === undefined) return { state };
  if (state.mode === "list" && (key.return || key.rightArrow)) {
    return { state: { ...state, mode: "detail", selectedId: current }, effect: { type: "open", id: current } };
  }
  if (input === "a") return { state: { ...state, mode: "confirm", selectedId: current, back: here } };
  if (input === "r") return { state: { ...state, mode: "reason", selectedId: current, reason: "", back: here } };
  return { state };
}

function onConfirm(state: UiState, input: string, key: Key): { state: UiState; effect?: Effect } {
  const next = { ...state, mode: state.back };
  if ((input === "y" || key.return) && state.selectedId !== undefined) return { state: next, effect: { type: "approve", id: state.selectedId } };
  return { state: next };
}

function onReason(state: UiState, input: string, key: Key, canCancel: boolean): { state: UiState; effect?: Effect } {
  if (key.escape) return { state: { ...state, mode: state.back, reason: "" } };
  if (key.return) {
    const reason = state.reason.trim();
    if (reason === "" || state.selectedId === undefined) return { state };
    if (canCancel) return { state: { ...state, mode: "cancel", reason } };
    return { state: { ...state, mode: state.back, reason: "" }, effect: { type: "reject", id: state.selectedId, reason, cancel: false } };
  }
  if (key.backspace || key.delete) return { state: { ...state, reason: state.reason.slice(0, -1) } };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return { state };
  // Printable text only (a paste arrives as one string).
  const text = input.replace(/[\u0000-\u001f\u007f]/g, "");
  return { state: { ...state, reason: state.reason + text } };
}

// "Also cancel it on-chain? [Y/n]": yes by default, since a rejection is meant to be final; esc goes
// back to the reason, nothing sent.
function onCancel(state: UiState, input: string, key: Key): { state: UiState; effect?: Effect } {
  if (key.escape) return { state: { ...state, mode: "reason" } };
  const answer = key.return || input === "y" || input === "Y" ? true : input === "n" || input === "N" ? false : undefined;
  if (answer === undefined || state.selectedId === undefined) return { state };
  return { state: { ...state, mode: state.back, reason: "" }, effect: { type: "reject", id: state.selectedId, reason: state.reason, cancel: answer } };
}

function step(ids: readonly string[], current: string | undefined, delta: number): string | undefined {
  if (ids.length === 0) return undefined;
  const index = current === undefined ? 0 : ids.indexOf(current);
  return ids[Math.min(ids.length - 1, Math.max(0, index + delta))];
}
