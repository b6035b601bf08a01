// Fault injection for the crash-safety tests: with RELAY_FAULT=<point> in the environment, the
// relayer process kills itself (SIGKILL, no clean-up) the first time it reaches that point. Points:
// "after-record" (transaction signed and recorded, not broadcast), "after-broadcast" (sent, not
// yet marked), "after-mined" (receipt seen, outcome not yet recorded), "before-response"
// (executed and recorded, answer not yet sent), "after-rejection" (an owner's rejection committed
// with its queued on-chain cancels, none sent yet). Unset: a no-op.
const point = process.env.RELAY_FAULT;

export type FaultPoint = "after-record" | "after-broadcast" | "after-mined" | "before-response" | "after-rejection";

export function faultPoint(name: FaultPoint): void {
  if (point === name) process.kill(process.pid, "SIGKILL");
}
