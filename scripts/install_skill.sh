#!/usr/bin/env bash
# Installs the parplan skill for Claude Code: copies skill/SKILL.md and
# skill/references/ to ~/.claude/skills/parplan/ and links bin/parplan there
# to this checkout's CLI (building it first if needed), or to the CLI named
# by $PARPLAN_CLI. Safe to run again.
#   scripts/install_skill.sh [SKILLS_DIR]     (default ~/.claude/skills)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
skills_dir=${1:-"$HOME/.claude/skills"}
name=$(sed -n 's/^name: *//p' "$repo/skill/SKILL.md" | head -1)
[[ -n "$name" ]] || { echo "install_skill: no name in skill/SKILL.md" >&2; exit 1; }
cli=${PARPLAN_CLI:-"$repo/build/parplan"}
if [[ ! -x "$cli" ]]; then
  "$repo/scripts/setup.sh"
fi
target="$skills_dir/$name"
mkdir -p "$target/bin"
cp "$repo/skill/SKILL.md" "$target/SKILL.md"
rm -rf "$target/references"
cp -r "$repo/skill/references" "$target/references"
ln -sfn "$cli" "$target/bin/parplan"
"$target/bin/parplan" min-gpus --tp 1 --pp 4 --ep 32 --cp 1 >/dev/null
echo "installed skill '$name' in $target (CLI: $target/bin/parplan -> $cli)"
