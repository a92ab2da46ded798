#!/usr/bin/env bash
# What the test suite needs beyond Go, installed when missing; sourced by
# test.sh, so that ./test.sh passes on a fresh machine by itself:
#   - git, sed, npm (Debian packages);
#   - Chromium (Debian's package), for the panel's browser tests (cmd/uitest);
#   - the real Claude Code CLI, pinned, cached outside the checkout under
#     ~/.cache/ckpt-ci, for cmd/e2e's real-client suite.
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

# The bench and some tests commit to scratch git repositories: give them an
# identity when the machine has none, without touching the git config.
if ! git config user.email >/dev/null 2>&1; then
  export GIT_AUTHOR_NAME=ckpt-test GIT_AUTHOR_EMAIL=test@ckpt.invalid
  export GIT_COMMITTER_NAME=ckpt-test GIT_COMMITTER_EMAIL=test@ckpt.invalid
fi
