#!/usr/bin/env python3
"""Fails the build when a file includes a header its module may not use.

Usage: check_layers.py SOURCE_DIR STAMP MODULE=DEP,DEP ... (the declarations
of CMakeLists.txt's parplan_core_module calls, lowest first). A core module
may include its own headers and those of the modules it depends on,
directly or through them; core/ never includes server/, skill/, gRPC or
protobuf; server/ never includes skill/. Writes STAMP when all is well.
"""
import os
import re
import sys

src, stamp, declarations = sys.argv[1], sys.argv[2], sys.argv[3:]
deps = {}
for d in declarations:
    module, _, rest = d.partition("=")
    deps[module] = [x for x in rest.split(",") if x]

closure = {}
def reach(module, seen=()):
    if module in closure:
        return closure[module]
    if module in seen:
        sys.exit(f"check_layers: the declared module dependencies have a cycle through {module}")
    out = {module}
    for d in deps.get(module, []):
        if d not in deps:
            sys.exit(f"check_layers: {module} depends on {d}, which is not a declared module")
        out |= reach(d, seen + (module,))
    closure[module] = out
    return out

include = re.compile(r'\s*#\s*include\s+["<]([^">]+)[">]')
problems = []
for top in ("core", "server"):
    for dirpath, _, files in os.walk(os.path.join(src, top)):
        for name in sorted(files):
            if not name.endswith((".h", ".cc", ".in")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            module = rel.split(os.sep)[1] if top == "core" else None
            if top == "core" and module not in deps:
                problems.append(f"{rel}: module core/{module} is not declared in CMakeLists.txt")
                continue
            allowed = reach(module) if top == "core" else None
            for number, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = include.match(line)
                if not m:
                    continue
                target = m.group(1)
                where = f"{rel}:{number}: #include \"{target}\""
                if top == "core":
                    if target.startswith(("server/", "skill/", "grpcpp/", "google/protobuf/", "parplan/v1/")):
                        problems.append(f"{where}: core/ stays free of the doors, gRPC and protobuf")
                    elif target.startswith("core/"):
                        used = target.split("/")[1]
                        if used not in allowed:
                            problems.append(f"{where}: core/{module} does not depend on core/{used} "
                                            f"(declared: {', '.join(deps[module]) or 'none'})")
                elif target.startswith("skill/"):
                    problems.append(f"{where}: server/ does not depend on the CLI/MCP doors")
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
open(stamp, "w").write("ok\n")
