// Types of relay/testing/node-test.
import type { RelayFixture, UseRelayOptions } from "./fixture.js";

export type { RelayFixture, UseRelayOptions } from "./fixture.js";

/** In a `node --test` file (node:test's before, beforeEach, after): starts one relay for the file, and reverts it to its state after the start before every test. */
export function useRelay(options?: UseRelayOptions): RelayFixture;
