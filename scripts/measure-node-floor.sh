#!/usr/bin/env bash
# Measures which Node.js versions run relay, for "Requirements" in docs/guides/operators.md and relay_node_ok in
# scripts/toolchain.sh. For each version given (e.g. 22.17.1 22.18.0 23.6.0 24.0.0) it fetches that
# Node from the npm registry (node-<os>-<arch>@<version>) into a temporary folder and, with it,
# runs `relay --help`, starts `relay serve` on free ports until ready, sends a `relay pay` (the
# relay client, undici) and stops the server with SIGTERM; then prints one line per version, and what
# scripts/toolchain.sh's probe says of that Node. Needs this checkout installed (./bin/relay once).
#   bash scripts/measure-node-floor.sh 22.17.1 22.18.0 23.6.0 23.11.1 24.0.0
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/toolchain.sh"
case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; esac
case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/relay-floor.XXXXXX")
trap 'rm -rf "$work"' EXIT

for version in "$@"; do
  dir="$work/$version"; mkdir -p "$dir"
  if ! (cd "$dir" && npm pack "node-$os-$arch@$version" --silent >/dev/null 2>&1 && tar -xzf ./*.tgz); then
    echo "$version: could not fetch node-$os-$arch@$version"; continue
  fi
  node="$dir/package/bin/node"
  relay() { (cd "$ROOT" && exec "$node" --disable-warning=ExperimentalWarning src/cli/bin.ts "$@"); }
  result=""
  if help=$(relay --help 2>&1); then result="help ok"; else result="help FAILS ($(echo "$help" | grep -m1 -E 'Error|error' | cut -c1-120))"; fi
  state="$dir/state"
  # Not through relay(): $! must be node itself, so that SIGTERM reaches it.
  (cd "$ROOT" && exec "$node" --disable-warning=ExperimentalWarning src/cli/bin.ts serve --port 0 --rpc-port 0 --state-dir "$state" --json >"$dir/serve.out" 2>"$dir/serve.err") &
  pid=$!
  for _ in $(seq 1 240); do [ -s "$dir/serve.out" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if [ -s "$dir/serve.out" ]; then
    result="$result, serve ok"
    if pay=$(relay pay --to 0x976EA74026E726554dB657fA54763abd0C3a0aa9 --amount 5 --token USDC --state-dir "$state" 2>&1); then result="$result, pay ok"
    else result="$result, pay FAILS ($(echo "$pay" | head -n1 | cut -c1-120))"; fi
    kill -TERM "$pid"; wait "$pid"; result="$result, SIGTERM exit $?"
  else
    wait "$pid"; result="$result, serve FAILS ($(grep -m1 -E 'Error|error' "$dir/serve.err" | cut -c1-120))"
  fi
  lacks=$(relay_node_lacks "$node")
  echo "$version: $result; probe: ${lacks:-runs relay}"
done
