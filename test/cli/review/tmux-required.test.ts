// The terminal tests must fail, not skip, where tmux is missing: CI has to install it.
import { describe, expect, it } from "vitest";
import { requireTmux } from "./support/tmux.ts";

describe("requireTmux", () => {
  it("fails with the package to install when tmux is not on PATH", () => {
    expect(() => requireTmux({ PATH: "/nonexistent" })).toThrow(/tmux is not installed.*apt-get install -y tmux/);
  });

  it("passes where tmux is installed", () => {
    expect(() => requireTmux()).not.toThrow();
  });
});
