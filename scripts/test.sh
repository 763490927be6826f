#!/usr/bin/env bash
# npm test: everything, on a fresh Debian machine as on a developer's.
#   1. system prerequisites (Node 22, pgvector in PostgreSQL 15, chromium, clamav)
#   2. dependencies (npm ci when node_modules is missing or stale)
#   3. lint and typecheck
#   4. the hub build (the HTTP and browser suites run the built server)
#   5. every suite: unit, integration (both databases), system, http, e2e
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_BIN="$(bash scripts/setup-system.sh | sed -n 's/^NODE_BIN=//p')"
export PATH="$NODE_BIN:$PATH"
if [ -f "$NODE_BIN/../include/node/node.h" ]; then export npm_config_nodedir="$(cd "$NODE_BIN/.." && pwd)"; fi
echo "[test] node $(node --version)"

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "[test] starting the local PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[test] installing dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

echo "[test] lint"
# The cache (in node_modules, never committed) makes a second run read only the files that changed.
npx eslint --cache --cache-location node_modules/.cache/eslint/ .
echo "[test] typecheck"
npx nuxt typecheck
echo "[test] build"
npx nuxt build > tests/build.log 2>&1 || { tail -50 tests/build.log; exit 1; }

mkdir -p tests/.tmp
status=0
npx vitest run --reporter=verbose --reporter=json --outputFile.json=tests/.tmp/results.json "$@" || status=$?
# A plain closing line CI can read whatever the runner: "N passed, N failed, N skipped".
node -e '
  const r = JSON.parse(require("fs").readFileSync("tests/.tmp/results.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit $status
