// The request states a signed transaction may be recorded from (Store.recordSubmission, whose
// Submission and SubmissionResult the relayer declares in src/relayer/store.ts).
import type { Status } from "./status.ts";

/** States from which a request may be submitted (fast path, AI approval, owner approval). */
export const submittableStatuses: readonly Status[] = ["received", "scanning", "held"];

export type { CancelSubmissionResult, Submission, SubmissionResult } from "../relayer/store.ts";
