#!/usr/bin/env bash
# `npm run compile`: compiles contracts/ with the pinned solc and writes the shipped artifacts,
# compiled/ and the digest of their sources in compiled/SOURCES (scripts/ship-contracts.ts). Commit
# compiled/ with every change to contracts/: test/contracts/shipped-artifacts.test.ts fails until then.
RELAY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$RELAY_ROOT/scripts/toolchain.sh"
relay_ensure_toolchain || exit 1
relay_ship_contracts || exit 1
relay_log "compiled/ holds the contracts compiled from contracts/ ($(cat "$RELAY_ROOT/compiled/SOURCES"))"
# The bytes left under the code size limits (EIP-170, EIP-3860) for the vault, its extension and the factory.
(cd "$RELAY_ROOT" && "$RELAY_NODE" scripts/contract-sizes.ts compiled) || exit 1
