// Parses the Prometheus text exposition format strictly, failing the calling test on any line that
// is not a HELP, TYPE or well-formed sample line (used by the metrics tests).
import { expect } from "vitest";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL_PAIR = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"(?:,|$)/;

/** Parses an exposition strictly: fails the test on any line that is not HELP, TYPE or a sample. */
export function parse(text: string): { samples: Sample[]; types: Map<string, string>; help: Map<string, string> } {
  expect(text.endsWith("\n")).toBe(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta !== null) {
      (meta[1] === "HELP" ? help : types).set(meta[2]!, meta[3]!);
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    expect(match, `malformed line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    let rest = match![2] ?? "";
    while (rest !== "") {
      const pair = LABEL_PAIR.exec(rest);
      expect(pair, `malformed labels in: ${line}`).not.toBeNull();
      labels[pair![1]!] = pair![2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      rest = rest.slice(pair![0].length);
    }
    const raw = match![3]!;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    expect(Number.isNaN(value) && raw !== "NaN", `bad value in: ${line}`).toBe(false);
    const family = match![1]!.replace(/_(bucket|sum|count)$/, "");
    expect(types.has(match![1]!) || types.has(family), `sample before its TYPE: ${line}`).toBe(true);
    samples.push({ name: match![1]!, labels, value });
  }
  return { samples, types, help };
}

export const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
