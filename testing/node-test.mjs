// relay/testing/node-test: `const relay = useRelay();` at the top of a test file run by `node --test`
// starts one relay for the file and gives every test a fresh state.
import { after, before, beforeEach } from "node:test";
import { relayFixture } from "./fixture.mjs";

export function useRelay(options) {
  return relayFixture(
    {
      beforeAll: (fn, timeout) => before(fn, { timeout }),
      beforeEach: (fn, timeout) => beforeEach(fn, { timeout }),
      afterAll: (fn, timeout) => after(fn, { timeout }),
    },
    options,
  );
}
