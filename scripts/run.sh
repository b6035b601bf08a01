#!/usr/bin/env bash
# Runs a command with the provisioned toolchain first on PATH: `bash scripts/run.sh vitest run`.
RELAY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$RELAY_ROOT/scripts/toolchain.sh"
relay_ensure_toolchain || exit 1
exec "$@"
