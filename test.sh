#!/usr/bin/env bash
# The test suite: install what the tests need when it is missing
# (scripts/test-deps.sh: Chromium, the real Claude Code CLI), vet, then
# every package's tests, with the race detector on the packages where
# concurrency lives. Long soak and fuzz runs are behind flags (see
# README.md).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/test-deps.sh
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
go run ./bench --quick
go test -race -timeout 15m ./store/... ./snapshot/... ./watcher/... ./drift/... ./integration/...
go test -timeout 30m ./config/... ./cmd/... ./bench/...
