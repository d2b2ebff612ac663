#!/usr/bin/env python3
"""Regenerates the example answers in skill/SKILL.md and skill/references/*.md
from what the CLI prints now, or (--check) fails when they differ.

An example is a fenced block between two marker comments:

    <!-- example: recommend --model llama3_70b --system h100-sxm --gpus 64 | keep: /^#1 /+2 ; /^#2 / | width: 200 -->
    ```
    (generated)
    ```
    <!-- /example -->

`example:` is the parplan command line (arguments after `parplan`, split as
a POSIX shell would). `keep:` (optional) picks lines of the output, in order,
separated by ";": `N` or `N-M` (1-based line numbers; `$` is the last line),
`/regex/` (the first line matching after the last one kept) or `/regex/+K`
(that line and the K after it). Each run of lines left out shows as one
`...` line. `width:` (optional) cuts a longer line at a word, ending it with
` ...`. Without `keep:` the whole output is the example.

usage: skill_examples.py PATH/parplan [--check] [SOURCE_DIR]
  --check  print what differs and exit 1 instead of writing the files
"""
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys

MARKER = re.compile(r"^<!-- example: (.*?) -->\n```[a-z]*\n(.*?)```\n<!-- /example -->$", re.M | re.S)


def pick(lines, spec):
    """The lines `spec` keeps, with "..." for each run left out."""
    kept = []  # indices into lines
    for selector in (s.strip() for s in spec.split(";") if s.strip()):
        found = re.fullmatch(r"/(.*)/(?:\+(\d+))?", selector)
        if found:
            start = (kept[-1] + 1) if kept else 0
            match = next((i for i in range(start, len(lines)) if re.search(found.group(1), lines[i])), None)
            if match is None:
                raise ValueError(f"no line matches {selector} after line {start}")
            kept.extend(range(match, min(len(lines), match + 1 + int(found.group(2) or 0))))
            continue
        found = re.fullmatch(r"(\d+)(?:-(\d+|\$))?", selector)
        if not found:
            raise ValueError(f"bad selector {selector!r}")
        first = int(found.group(1)) - 1
        last = first if found.group(2) is None else (len(lines) - 1 if found.group(2) == "$" else int(found.group(2)) - 1)
        kept.extend(range(first, min(last, len(lines) - 1) + 1))
    out, previous = [], -1
    for i in kept:
        if i <= previous:
            continue
        if i > previous + 1:
            out.append("...")
        out.append(lines[i])
        previous = i
    if previous < len(lines) - 1:
        out.append("...")
    return out


def cut(line, width):
    if len(line) <= width:
        return line
    space = line.rfind(" ", 0, width - 4)
    return line[: space if space > 0 else width - 4] + " ..."


def render(cli, header):
    parts = [p.strip() for p in header.split("|")]
    args, keep, width = parts[0], None, None
    for part in parts[1:]:
        key, _, value = part.partition(":")
        if key.strip() == "keep":
            keep = value.strip()
        elif key.strip() == "width":
            width = int(value)
        else:
            raise ValueError(f"unknown option {part!r} in {header!r}")
    run = subprocess.run([cli] + shlex.split(args), capture_output=True, text=True, timeout=120)
    if run.returncode != 0:  # 0: an answer (an invalid config or one that does not fit too)
        raise RuntimeError(f"parplan {args}: exit {run.returncode}: {run.stderr[-400:]}")
    lines = run.stdout.rstrip("\n").split("\n")
    if keep:
        lines = pick(lines, keep)
    if width:
        lines = [cut(line, width) for line in lines]
    return "\n".join(lines) + "\n"


def main():
    argv = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    if not argv:
        sys.exit(__doc__)
    cli = os.path.abspath(argv[0])
    src = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    os.chdir(src)  # examples name files by their path in the repository (tests/data/...)
    files = [os.path.join(src, "skill", "SKILL.md")] + sorted(glob.glob(os.path.join(src, "skill", "references", "*.md")))
    stale = 0
    for path in files:
        text = open(path, encoding="utf-8").read()

        def replace(m):
            fence = re.match(r"```[a-z]*\n", text[m.start(0) + len(m.group(0).split("\n")[0]) + 1 :]).group(0)
            return f"<!-- example: {m.group(1)} -->\n{fence}{render(cli, m.group(1))}```\n<!-- /example -->"

        new = MARKER.sub(replace, text)
        if new == text:
            continue
        stale += 1
        rel = os.path.relpath(path, src)
        if check:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), rel, rel + " (now)"))
        else:
            open(path, "w", encoding="utf-8").write(new)
            print(f"updated {rel}")
    if check and stale:
        print(f"\n{stale} file(s) have examples that differ from what parplan prints now; regenerate them with\n"
              f"  scripts/skill_examples.py build/parplan")
        sys.exit(1)
    examples = sum(len(MARKER.findall(open(p, encoding='utf-8').read())) for p in files)
    if examples == 0:
        sys.exit("no examples between <!-- example: ... --> markers")
    print(f"{examples} examples {'match' if check else 'regenerated from'} parplan's output")


if __name__ == "__main__":
    main()
