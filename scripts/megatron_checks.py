#!/usr/bin/env python3
"""Reads core/rules/MEGATRON_CHECKS.md (the audit of Megatron's own config
checks) against core/diagnostics/rule_catalog.cc.

    python3 scripts/megatron_checks.py           # summary, then the rows on
                                                 # parplan's inputs without a rule
    python3 scripts/megatron_checks.py --check   # also exit 1 when a row names
                                                 # a rule id the catalog lacks

A row "involves parplan's inputs" when its involvement cell starts with
"yes". It has a rule when its rule cell names a catalogued id, or says why
none is needed (input check, defaulted, render, n/a, holds, benign).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ROW = re.compile(r"^\| ([A-Z]{2,4}-?\d+[a-z]?) \|")
RULE_ID = re.compile(r"\b([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)\b")
COVERED_OTHERWISE = ("input check", "input bound", "defaulted", "render", "n/a", "holds", "benign", "implied")
NOT_RULES = {"arguments.py", "config.py", "render.cc", "model_checks.cc", "rule_catalog.cc", "precision.cc",
             "parallel_config.cc", "transformer_config.py", "comm_overlap.py", "mixed_precision.py"}


def main(argv):
    check = "--check" in argv
    catalog = set(re.findall(r'\{"([a-z0-9_]+\.[a-z0-9_]+)", Severity',
                             open(os.path.join(ROOT, "core/diagnostics/rule_catalog.cc")).read()))
    rows, missing_rule, unknown_ids = 0, [], []
    involved = covered = 0
    for line in open(os.path.join(ROOT, "core/rules/MEGATRON_CHECKS.md"), encoding="utf-8"):
        m = ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.rstrip("\n"))]
        if len(cells) < 9:
            continue
        rows += 1
        involves, rule = cells[5], cells[6]
        # Rule ids are named outside parentheses (which hold explanations).
        claimed = re.sub(r"\([^)]*\)", "", rule.split("NOT IMPLEMENTED:")[0])
        named = [r for r in RULE_ID.findall(claimed) if r not in NOT_RULES and not r.endswith((".py", ".cc", ".h"))]
        for r in named:
            if r not in catalog:
                unknown_ids.append((m.group(1), r))
        if not involves.startswith("yes"):
            continue
        involved += 1
        if any(r in catalog for r in named) or rule.lower().startswith(COVERED_OTHERWISE) or \
                any(word in rule.lower() for word in COVERED_OTHERWISE) and "NOT IMPLEMENTED" not in rule:
            covered += 1
        else:
            missing_rule.append((m.group(1), cells[2], rule[:90]))
    print(f"{rows} checks audited; {involved} decidable from parplan's inputs; {covered} of them implemented or "
          f"covered otherwise; {len(missing_rule)} without a rule")
    for row_id, where, rule in missing_rule:
        print(f"  no rule: {row_id:8} {where:34} {rule}")
    for row_id, rule in unknown_ids:
        print(f"  ERROR: {row_id} names '{rule}', which core/diagnostics/rule_catalog.cc does not have")
    return 1 if check and unknown_ids else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
