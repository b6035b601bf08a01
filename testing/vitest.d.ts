// Types of relay/testing/vitest.
import type { RelayFixture, UseRelayOptions } from "./fixture.js";

export type { RelayFixture, UseRelayOptions } from "./fixture.js";

/** In a vitest test file: starts one relay for the file, and reverts it to its state after the start before every test. */
export function useRelay(options?: UseRelayOptions): RelayFixture;
