// Which lines of the review list a short terminal shows: the window follows the selection and moves
// only when the selection would leave it.
import { describe, expect, it } from "vitest";
import { scrollWindow } from "../../../src/cli/review/ui/list.ts";

describe("scrollWindow", () => {
  it("shows everything from the top when it fits", () => {
    expect(scrollWindow(5, 4, 10, 0)).toEqual({ offset: 0, rows: 10 });
  });

  it("scrolls down one line at a time once the selection passes the bottom, and back up at the top", () => {
    let offset = 0;
    const offsets: number[] = [];
    for (let selected = 0; selected < 30; selected++) {
      offset = scrollWindow(30, selected, 8, offset).offset;
      offsets.push(offset);
      expect(selected).toBeGreaterThanOrEqual(offset);
      expect(selected).toBeLessThan(offset + 8);
    }
    expect(offsets.slice(0, 9)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(offsets.at(-1)).toBe(22);
    // Moving up inside the window does not scroll; past its top it does.
    expect(scrollWindow(30, 25, 8, 22).offset).toBe(22);
    expect(scrollWindow(30, 21, 8, 22).offset).toBe(21);
  });

  it("pulls the window back when the list shrinks under it, and always shows at least one line", () => {
    expect(scrollWindow(3, 2, 8, 22)).toEqual({ offset: 0, rows: 8 });
    expect(scrollWindow(30, 10, 0, 0)).toEqual({ offset: 10, rows: 1 });
    expect(scrollWindow(0, -1, 5, 4)).toEqual({ offset: 0, rows: 5 });
  });
});
