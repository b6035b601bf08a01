import { describe, expect, it } from "vitest";
import { timed, type Step } from "../../src/relayer/steps.ts";

function recorder(): { told: Array<[Step, number]>; onStep: (step: Step, seconds: number) => void } {
  const told: Array<[Step, number]> = [];
  return { told, onStep: (step, seconds) => told.push([step, seconds]) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("timed", () => {
  it("returns the work's value and tells how long it took", async () => {
    const { told, onStep } = recorder();
    const value = await timed(onStep, "settle", async () => {
      await pause(20);
      return 7;
    });
    expect(value).toBe(7);
    expect(told).toHaveLength(1);
    expect(told[0]![0]).toBe("settle");
    expect(told[0]![1]).toBeGreaterThanOrEqual(0.015);
    expect(told[0]![1]).toBeLessThan(5);
  });

  it("times a step that rejects, and rejects with the work's error", async () => {
    const { told, onStep } = recorder();
    const failure = new Error("no");
    const run = timed(onStep, "checks", async () => {
      await pause(10);
      throw failure;
    });
    expect(told).toHaveLength(0);
    await expect(run).rejects.toBe(failure);
    expect(told.map(([step]) => step)).toEqual(["checks"]);
    expect(told[0]![1]).toBeGreaterThanOrEqual(0.005);
  });

  it("turns a synchronous throw into a timed rejection, with or without onStep", async () => {
    const { told, onStep } = recorder();
    const failure = new Error("sync");
    const work = (): Promise<number> => {
      throw failure;
    };
    const timedRun = timed(onStep, "record", work);
    const plainRun = timed(undefined, "record", work);
    await expect(timedRun).rejects.toBe(failure);
    await expect(plainRun).rejects.toBe(failure);
    expect(told.map(([step]) => step)).toEqual(["record"]);
  });

  it("is told nothing before the work settles, and runs the work once", async () => {
    const { told, onStep } = recorder();
    let runs = 0;
    let release!: (value: string) => void;
    const run = timed(onStep, "idempotency", () => {
      runs++;
      return new Promise<string>((resolve) => (release = resolve));
    });
    await pause(5);
    expect(told).toHaveLength(0);
    release("done");
    expect(await run).toBe("done");
    expect(runs).toBe(1);
    expect(told).toHaveLength(1);
  });

  it("without onStep hands back the work's own promise", async () => {
    const promise = Promise.resolve(3);
    expect(timed(undefined, "sign", () => promise)).toBe(promise);
  });
});
