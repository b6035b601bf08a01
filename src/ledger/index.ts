// The relayer's durable ledger (DESIGN §7 Persistence): requests, idempotency, spend windows, nonces.
export { openLedger, Ledger, submittableStatuses, reviewExpiredReason } from "./ledger.ts";
export type { Submission, SubmissionResult } from "./ledger.ts";
export { ledgerPath, ledgerFileName } from "./db.ts";
export type { LedgerOptions, TransactionOptions } from "./db.ts";
export { newRequestId } from "./requests.ts";
export type { BotHistoryRow, NewRequest, RequestRecord, ReviewFilter, TransitionFields } from "./requests.ts";
export { InFlight, idempotencyRetentionMs } from "./idempotency.ts";
export type { ClaimOutcome, KeyState } from "./idempotency.ts";
export type { ReserveResult, SpendEntry, SpendLimits, SpendingLimit, WindowQuery, WindowTotals } from "./spend.ts";
export { publicStatus, statuses, inFlightStatuses, requestKinds } from "./status.ts";
export type { PublicStatus, RequestKind, Status } from "./status.ts";
export { schemaVersion, migrate, migrations } from "./schema.ts";
export type { Replacement } from "./replacements.ts";
export type { TermsAcceptance } from "./terms.ts";
export type { CancelKey, CancelStatus, IntentCancel } from "./intent-cancels.ts";
export type { CancelSubmissionResult } from "./submission.ts";
