// Types of relay/testing/jest.
import type { RelayFixture, UseRelayOptions } from "./fixture.js";

export type { RelayFixture, UseRelayOptions } from "./fixture.js";

/** In a jest test file (jest's globals): starts one relay for the file, and reverts it to its state after the start before every test. */
export function useRelay(options?: UseRelayOptions): RelayFixture;
