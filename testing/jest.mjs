// relay/testing/jest: `const relay = useRelay();` at the top of a test file starts one relay for the
// file and gives every test a fresh state. Jest's own hooks are its globals (injectGlobals, the
// default); relay/testing is ES modules, so jest runs with node --experimental-vm-modules.
import { relayFixture } from "./fixture.mjs";

export function useRelay(options) {
  const { beforeAll, beforeEach, afterAll } = globalThis;
  if (typeof beforeAll !== "function") throw new Error("relay/testing/jest: call useRelay() in a test file run by jest (its globals beforeAll, beforeEach and afterAll are missing)");
  return relayFixture({ beforeAll, beforeEach, afterAll }, options);
}
