#!/usr/bin/env bash
# The Debian packages the test suite runs for real, installed where missing (one `apt-get update`, one install):
# `npm test` runs this first (package.json's test script), `.ci/run` beside `npm ci`. Without root it names the missing
# packages and the command that installs them, and fails.
#   chromium    the test that loads /docs in a real browser (tests/integration/docs)
#   pgbouncer   the tests behind a transaction-mode pooler (TEST_PGBOUNCER=1, the */pgbouncer.test.ts files)
#   haproxy     API processes behind a load balancer (docs/deploy.md; tests/integration/process/load-balancer.test.ts)
#   nginx       docs/deploy.md's other balancer (tests/integration/process/trusted-proxy.test.ts)
#   postgresql  PostgreSQL's own pg_basebackup for the streaming-replica tests (the embedded PostgreSQL ships none)
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
ls /usr/lib/postgresql/*/bin/pg_basebackup >/dev/null 2>&1 || missing+=(postgresql)

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "the test suite runs Debian's ${missing[*]}, missing here: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "installing Debian's ${missing[*]} (the test suite runs them)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

chromium --version 2>/dev/null
pgbouncer --version | sed -n 1p # sed reads to the end: head would make the writer die of SIGPIPE under pipefail
haproxy -v | sed -n 1p
nginx -v 2>&1
ls -d /usr/lib/postgresql/*/bin/pg_basebackup | tail -1
