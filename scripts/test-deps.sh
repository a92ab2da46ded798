#!/usr/bin/env bash
# What the test suite needs beyond Go, installed when missing; sourced by
# test.sh, so that ./test.sh passes on a fresh machine by itself:
#   - git, sed, npm (Debian packages);
#   - Chromium (Debian's package), for the panel's browser tests (cmd/uitest);
#   - the real Claude Code CLI, pinned, cached outside the checkout under
#     ~/.cache/ckpt-ci, for cmd/e2e's real-client suite;
#   - SeaweedFS's weed, pinned and built once (about 6 minutes on 2 cores)
#     into ~/.cache/ckpt-ci/seaweedfs-<version>/weed, for the replication
#     tests against a real S3 server (CKPT_WEED).
# It exports CKPT_CLAUDE (the CLI's binary) and CKPT_REAL_CLIENTS=1 (the
# real-client suite then fails, not skips, when the CLI is not usable).

need=()
command -v git >/dev/null || need+=(git)
command -v sed >/dev/null || need+=(sed)
command -v npm >/dev/null || need+=(npm)
[ -x /usr/bin/chromium ] || command -v chromium >/dev/null || need+=(chromium)
if ((${#need[@]})); then
  echo "test-deps: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}"
fi

# The Claude Code npm package ships a native binary in a platform package;
# the tests run that one (its postinstall need not run).
claude_version=2.1.332
claude_cache="$HOME/.cache/ckpt-ci/claude"
claude_arch=$(uname -m | sed 's/x86_64/x64/; s/aarch64/arm64/')
claude_bin="$claude_cache/node_modules/@anthropic-ai/claude-code-linux-$claude_arch/claude"
if [[ "$("$claude_bin" --version 2>/dev/null || true)" != "$claude_version "* ]]; then
  echo "test-deps: installing @anthropic-ai/claude-code@$claude_version into $claude_cache" >&2
  mkdir -p "$claude_cache"
  npm install --prefix "$claude_cache" --no-save --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$claude_version"
fi
export CKPT_CLAUDE="$claude_bin"
export CKPT_REAL_CLIENTS=1

# SeaweedFS: its module has replace directives, so `go install mod@version`
# refuses it; download the pinned version and build ./weed in a writable
# copy of it. The binary is reused while it exists.
weed_version=v0.0.0-20261109003541-7506e5f91cd6
weed_bin() {
  local dir="$HOME/.cache/ckpt-ci/seaweedfs-$weed_version"
  if [ ! -x "$dir/weed" ]; then
    echo "test-deps: building SeaweedFS $weed_version into $dir (once; several minutes)" >&2
    local src
    src=$(cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod go mod download -json "github.com/seaweedfs/seaweedfs@$weed_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    rm -rf "$dir/src" && mkdir -p "$dir" && cp -r "$src" "$dir/src" && chmod -R u+w "$dir/src"
    (cd "$dir/src" && GOFLAGS=-mod=mod go build -o "$dir/weed.tmp" ./weed) && mv "$dir/weed.tmp" "$dir/weed"
    rm -rf "$dir/src"
  fi
  echo "$dir/weed"
}
CKPT_WEED=$(weed_bin)
export CKPT_WEED

# The bench and some tests commit to scratch git repositories: give them an
# identity when the machine has none, without touching the git config.
if ! git config user.email >/dev/null 2>&1; then
  export GIT_AUTHOR_NAME=ckpt-test GIT_AUTHOR_EMAIL=test@ckpt.invalid
  export GIT_COMMITTER_NAME=ckpt-test GIT_COMMITTER_EMAIL=test@ckpt.invalid
fi
