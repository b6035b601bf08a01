// The timed steps of a relayed intent, for relay_step_duration_seconds: where a request's time goes,
// as an operator sees it on /metrics and the profile bench prints it for a lone payment.
//
// Per request (the spine, relayer.ts and settle.ts):
//   idempotency  looking the request's idempotency key up (a ledger read; it is claimed in record's transaction)
//   checks       signature, the policy read and the simulation (the node's eth_call), every rule
//   record       claiming the key, recording the request and reserving its spend (a ledger transaction)
//   settle       writing the outcome and the answer once the transaction's fate is known
// Per transaction (submitter.ts; a batch's payments share one):
//   sign         fees, nonce, signature and recording the signed transaction (with several
//                instances, the wait for the key's lease too)
//   durable      making that record durable (the ledger's group fsync)
//   confirm      from the broadcast until the receipt is in hand (mined or reverted transactions only)
// Every run of a step is timed whatever its outcome, except confirm's.

/** Every step, in the order a lone payment goes through them. */
export const steps = ["idempotency", "checks", "record", "sign", "durable", "confirm", "settle"] as const;

export type Step = (typeof steps)[number];

/** Told how long each run of a step took, in seconds. */
export type OnStep = (step: Step, seconds: number) => void;

/**
 * Runs `work`, telling `onStep` how long it took (also when it throws). No async frame of its own:
 * without `onStep`, `work`'s promise as is; with it, that promise timed by a `finally`.
 */
export function timed<T>(onStep: OnStep | undefined, step: Step, work: () => Promise<T>): Promise<T> {
  if (!onStep) return started(work);
  const start = performance.now();
  return started(work).finally(() => onStep(step, (performance.now() - start) / 1000));
}

/** `work()`'s promise; a synchronous throw becomes its rejection, as from an async function. */
function started<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}
