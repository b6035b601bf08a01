// One way for every benchmark to print a figure beside its target: `label: 0.42 ms (target <= 1.5 ms) MET`.
// A goal the run does not reach prints UNDER, whichever way the target points.

export interface Target {
  /** "<=": the figure must not exceed `value`; ">=": it must reach it. */
  op: "<=" | ">=";
  value: number;
}

export function met(figure: number, target: Target): boolean {
  return target.op === "<=" ? figure <= target.value : figure >= target.value;
}

/** "label: figure unit (target op value unit) MET|UNDER", the figure rounded to `digits`. */
export function targetLine(label: string, figure: number, target: Target, unit = "", digits = 2): string {
  const u = unit ? ` ${unit}` : "";
  const shown = Number.isFinite(figure) ? figure.toFixed(digits) : String(figure);
  return `${label}: ${shown}${u} (target ${target.op} ${target.value}${u}) ${met(figure, target) ? "MET" : "UNDER"}`;
}
