// relay/testing/vitest: `const relay = useRelay();` at the top of a test file starts one relay for
// the file and gives every test a fresh state (a revert to the snapshot taken after the start).
import { afterAll, beforeAll, beforeEach } from "vitest";
import { relayFixture } from "./fixture.mjs";

export function useRelay(options) {
  return relayFixture({ beforeAll, beforeEach, afterAll }, options);
}
