// Fault injection for the crash-safety tests: with RELAY_FAULT=<point> in the environment, the
// relayer process kills itself (SIGKILL, no clean-up) the first time it reaches that point. Points:
// "after-record" (transaction signed and recorded, not broadcast), "after-broadcast" (sent, not
// yet marked), "before-response" (executed, answer not yet sent). Unset: a no-op.
const point = process.env.RELAY_FAULT;

export function faultPoint(name: "after-record" | "after-broadcast" | "before-response"): void {
  if (point === name) process.kill(process.pid, "SIGKILL");
}
