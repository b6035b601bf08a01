// The steps of a GitHub Actions workflow file, read strictly enough to run them as Actions would: each
// step's `name`, `uses`, `if` and `run` (a one-line `run: …` or a block `run: |`). Anything that would
// change how Actions runs a script and that the test does not reproduce (`env:`, `shell:`,
// `defaults:`, `working-directory:`, `${{ … }}` expressions, other block styles, quoted or commented
// one-line values) is refused with an error instead of being run differently. No YAML dependency.

export interface WorkflowStep {
  name?: string;
  uses?: string;
  if?: string;
  /** The script exactly as Actions hands it to the shell. */
  run?: string;
}

const STEP_KEYS = new Set(["name", "uses", "if", "run", "with"]);
const UNSUPPORTED = /^\s*(?:-\s+)?(env|defaults|shell|working-directory|container|services):/;

export function workflowSteps(text: string): WorkflowStep[] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => /^\s*steps:\s*$/.test(line));
  if (start === -1) throw new Error("the workflow has no steps:");
  if (lines.findIndex((line, i) => i > start && /^\s*steps:\s*$/.test(line)) !== -1) throw new Error("more than one steps: list (one job only)");
  for (const line of lines.slice(0, start)) if (UNSUPPORTED.test(line)) throw new Error(`not supported by this test: ${line.trim()}`);

  const steps: WorkflowStep[] = [];
  let stepIndent: number | undefined;
  let step: WorkflowStep | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const indent = line.length - line.trimStart().length;
    stepIndent ??= indent;
    if (indent < stepIndent) throw new Error(`line ${i + 1} follows the steps: list (one job, its steps last): ${line.trim()}`);
    let rest = line.slice(indent);
    if (indent === stepIndent) {
      if (!rest.startsWith("- ")) throw new Error(`line ${i + 1}: expected a step ("- key: value"): ${rest}`);
      step = {};
      steps.push(step);
      rest = rest.slice(2);
    } else if (indent !== stepIndent + 2) {
      continue; // the members of a `with:` (given to a `uses:` action, not run here)
    }
    if (UNSUPPORTED.test(rest)) throw new Error(`line ${i + 1}: not supported by this test: ${rest}`);
    const match = /^([a-z-]+):(?:\s+(.*))?$/.exec(rest);
    if (match === null || step === undefined) throw new Error(`line ${i + 1}: expected "key: value": ${rest}`);
    const [, key, value = ""] = match as unknown as [string, string, string | undefined];
    if (!STEP_KEYS.has(key)) throw new Error(`line ${i + 1}: step key "${key}" is not supported by this test`);
    if (key === "with") continue;
    if (key === "run" && value === "|") {
      const block = blockScalar(lines, i + 1, stepIndent + 2);
      step.run = block.text;
      i = block.next - 1;
    } else {
      step[key as keyof WorkflowStep] = plainScalar(value, i + 1);
    }
    if (step.run !== undefined && step.run.includes("${{")) throw new Error(`line ${i + 1}: \${{ }} expressions are not evaluated by this test`);
  }
  for (const s of steps) if ((s.run === undefined) === (s.uses === undefined)) throw new Error(`a step needs exactly one of run: and uses: (${s.name ?? "unnamed"})`);
  return steps;
}

// A one-line value: plain text only (quotes, comments and other block styles are refused).
function plainScalar(value: string, lineNumber: number): string {
  if (value === "" || /^["'|>&*!{[]/.test(value) || value.includes(" #")) {
    throw new Error(`line ${lineNumber}: only plain one-line values and "run: |" blocks are supported, got: ${value}`);
  }
  return value;
}

// A `|` block: the lines indented deeper than its key, less the first line's indentation, ending with
// one newline (YAML's default "clip" chomping).
function blockScalar(lines: readonly string[], from: number, keyIndent: number): { text: string; next: number } {
  let next = from;
  while (next < lines.length && (lines[next]!.trim() === "" || lines[next]!.length - lines[next]!.trimStart().length > keyIndent)) next++;
  const body = lines.slice(from, next);
  while (body.length > 0 && body.at(-1)!.trim() === "") body.pop();
  const first = body.find((line) => line.trim() !== "");
  if (first === undefined) throw new Error(`line ${from}: empty run: | block`);
  const indent = first.length - first.trimStart().length;
  const text = body.map((line) => {
    if (line.trim() === "") return "";
    if (line.length - line.trimStart().length < indent) throw new Error(`a run: | block line is indented less than its first line: ${line}`);
    return line.slice(indent);
  });
  return { text: `${text.join("\n")}\n`, next };
}
