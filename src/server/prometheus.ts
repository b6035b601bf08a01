// A small Prometheus registry: counters, gauges and histograms with labels, written out in the text
// exposition format 0.0.4 (a `# HELP` and a `# TYPE` line per metric, then one sample per line).
//
// Label values are escaped (backslash, double quote, newline), HELP text too (backslash, newline).
// A histogram writes cumulative `_bucket{le="…"}` samples ending with `le="+Inf"`, then `_sum` and
// `_count`. A gauge may have a collect callback, called before each exposition; it sets the values
// from scratch (the gauge is cleared first, so label sets that disappeared are not kept).

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label values of one series, one per label name of the metric. */
export type Labels<L extends string> = { readonly [K in L]: string | number };

/** A value as the exposition format writes it: integers plainly, and +Inf, -Inf, NaN by name. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** `{a="1",b="2"}` in the label names' order, or "" when there are none. */
function labelText(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const pairs = names.map((name, i) => `${name}="${escapeLabelValue(values[i] ?? "")}"`);
  if (extra !== undefined) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

/** Common part of every metric: name, help, label names, and its series keyed by label values. */
abstract class Metric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  protected readonly series = new Map<string, { values: string[]; state: S }>();
  abstract readonly type: "counter" | "gauge" | "histogram";

  constructor(name: string, help: string, labelNames: readonly L[]) {
    if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith("__")) throw new Error(`invalid label name ${JSON.stringify(label)} on ${name}`);
    }
    if (new Set(labelNames).size !== labelNames.length) throw new Error(`duplicate label name on ${name}`);
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  protected abstract initial(): S;

  /** The series for these label values, created on first use. */
  protected state(labels: Labels<L> | undefined): S {
    const { key, values } = this.seriesKey(labels);
    return this.stateAt(key, values);
  }

  /** The label values in label order, and the key of their series. */
  protected seriesKey(labels: Labels<L> | undefined): { key: string; values: string[] } {
    const values = this.labelNames.map((name) => {
      const value = labels?.[name];
      if (value === undefined) throw new Error(`metric ${this.name} needs label ${name}`);
      return String(value);
    });
    return { key: JSON.stringify(values), values };
  }

  /** The series of `key` (from seriesKey), created on first use. */
  protected stateAt(key: string, values: string[]): S {
    let entry = this.series.get(key);
    if (entry === undefined) {
      entry = { values, state: this.initial() };
      this.series.set(key, entry);
    }
    return entry.state;
  }

  /** Drops every series. */
  reset(): void {
    this.series.clear();
  }

  /** Called before the samples are written; gauges with a collect callback refresh themselves. */
  async collect(): Promise<void> {}

  protected abstract samples(values: string[], state: S): string[];

  /** HELP, TYPE and sample lines of this metric. */
  expose(): string[] {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
    for (const { values, state } of this.series.values()) lines.push(...this.samples(values, state));
    return lines;
  }

  protected line(suffix: string, values: readonly string[], value: number, extra?: [string, string]): string {
    return `${this.name}${suffix}${labelText(this.labelNames, values, extra)} ${formatValue(value)}`;
  }
}

export class Counter<L extends string = never> extends Metric<L, { value: number }> {
  readonly type = "counter";
  protected initial() {
    return { value: 0 };
  }
  /** Adds `by` (default 1, never negative) to the series of these labels. */
  inc(...args: [L] extends [never] ? [by?: number] : [labels: Labels<L>, by?: number]): void {
    const [labels, by] = (typeof args[0] === "object" ? args : [undefined, args[0]]) as [Labels<L> | undefined, number?];
    const amount = by ?? 1;
    if (!(amount >= 0)) throw new RangeError(`counter ${this.name} can only go up`);
    this.state(labels).value += amount;
  }
  /**
   * The series of these labels, to count often: their key is worked out once, here (the series
   * itself is still looked up at each increment, so a reset() drops it as any other).
   */
  labels(labels: Labels<L>): { inc(by?: number): void } {
    const { key, values } = this.seriesKey(labels);
    return {
      inc: (by = 1) => {
        if (!(by >= 0)) throw new RangeError(`counter ${this.name} can only go up`);
        this.stateAt(key, values).value += by;
      },
    };
  }
  /** Current value of a series (0 when never incremented). */
  get(...args: [L] extends [never] ? [] : [labels: Labels<L>]): number {
    return this.state(args[0]).value;
  }
  protected samples(values: string[], state: { value: number }) {
    return [this.line("", values, state.value)];
  }
}

export class Gauge<L extends string = never> extends Metric<L, { value: number }> {
  readonly type = "gauge";
  #collector: ((gauge: Gauge<L>) => void | Promise<void>) | undefined;

  protected initial() {
    return { value: 0 };
  }
  set(...args: [L] extends [never] ? [value: number] : [labels: Labels<L>, value: number]): void {
    const [labels, value] = (args.length === 2 ? args : [undefined, args[0]]) as [Labels<L> | undefined, number];
    this.state(labels).value = value;
  }
  get(...args: [L] extends [never] ? [] : [labels: Labels<L>]): number {
    return this.state(args[0]).value;
  }
  /**
   * Sets the callback that fills this gauge before each exposition (through `set`). The gauge is
   * cleared before the callback runs; a callback that throws leaves the gauge without samples.
   */
  onCollect(collector: (gauge: Gauge<L>) => void | Promise<void>): void {
    this.#collector = collector;
  }
  override async collect(): Promise<void> {
    if (this.#collector === undefined) return;
    this.reset();
    try {
      await this.#collector(this);
    } catch {
      this.reset();
    }
  }
  protected samples(values: string[], state: { value: number }) {
    return [this.line("", values, state.value)];
  }
}

interface HistogramState {
  /** Per-bucket counts, not cumulative; the last entry counts values above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> extends Metric<L, HistogramState> {
  readonly type = "histogram";
  readonly buckets: readonly number[];

  constructor(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]) {
    super(name, help, labelNames);
    if ((labelNames as readonly string[]).includes("le")) throw new Error(`histogram ${name} cannot have a label named le`);
    if (buckets.length === 0 || buckets.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!))) {
      throw new Error(`histogram ${name} needs finite, increasing bucket bounds`);
    }
    this.buckets = [...buckets];
  }
  protected initial(): HistogramState {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }
  observe(...args: [L] extends [never] ? [value: number] : [labels: Labels<L>, value: number]): void {
    const [labels, value] = (args.length === 2 ? args : [undefined, args[0]]) as [Labels<L> | undefined, number];
    this.#add(this.state(labels), value);
  }
  /**
   * The series of these labels, to observe often: their key is worked out once, here (the series
   * itself is still looked up at each observation, so a reset() drops it as any other).
   */
  labels(labels: Labels<L>): { observe(value: number): void } {
    const { key, values } = this.seriesKey(labels);
    return { observe: (value) => this.#add(this.stateAt(key, values), value) };
  }
  #add(state: HistogramState, value: number): void {
    let index = this.buckets.findIndex((bound) => value <= bound);
    if (index === -1) index = this.buckets.length;
    state.counts[index]!++;
    state.sum += value;
    state.count++;
  }
  protected samples(values: string[], state: HistogramState) {
    const lines: string[] = [];
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += state.counts[i]!;
      lines.push(this.line("_bucket", values, cumulative, ["le", formatValue(bound)]));
    });
    lines.push(this.line("_bucket", values, state.count, ["le", "+Inf"]));
    lines.push(this.line("_sum", values, state.sum));
    lines.push(this.line("_count", values, state.count));
    return lines;
  }
}

/** What the registry needs of a metric. */
interface Exposable {
  readonly name: string;
  collect(): Promise<void>;
  expose(): string[];
}

export class Registry {
  readonly #metrics = new Map<string, Exposable>();

  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return this.#add(new Counter<L>(name, help, labelNames));
  }
  gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return this.#add(new Gauge<L>(name, help, labelNames));
  }
  histogram<L extends string = never>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): Histogram<L> {
    return this.#add(new Histogram<L>(name, help, labelNames, buckets));
  }

  /**
   * The text exposition of every metric (or of those named in `only`), in registration order, after
   * running their collect callbacks.
   */
  async expose(only?: ReadonlySet<string>): Promise<string> {
    const metrics = [...this.#metrics.values()].filter((metric) => only === undefined || only.has(metric.name));
    await Promise.all(metrics.map((metric) => metric.collect()));
    return metrics.flatMap((metric) => metric.expose()).join("\n") + "\n";
  }

  #add<M extends Exposable>(metric: M): M {
    if (this.#metrics.has(metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }
}
