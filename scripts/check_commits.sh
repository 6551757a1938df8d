#!/usr/bin/env bash
# Commit subjects are one short line: every commit after the base below has a subject of at most
# 72 characters (the details go in the body). Run by scripts/test.sh; skipped where the clone has
# no history back to the base (a shallow clone).
set -euo pipefail
cd "$(dirname "$0")/.."
base=3bb1bba  # the first commit held to the rule
if ! git rev-parse --verify -q "$base^{commit}" >/dev/null 2>&1; then
    echo "check_commits: $base not in this clone's history; skipped"
    exit 0
fi
long=$(git log --format='%h %s' "$base..HEAD" | awk 'length($0) - 8 > 72')
if [ -n "$long" ]; then
    echo "commit subjects longer than 72 characters:" >&2
    echo "$long" >&2
    exit 1
fi
