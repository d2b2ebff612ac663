#!/usr/bin/env python3
"""Builds core/import/bridge_recipe_data.cc: the Megatron Bridge recipe catalog (JSON).

Reads the recipe functions of a Megatron Bridge git mirror at a pinned commit
(src/megatron/bridge/recipes/**) and evaluates each one symbolically: the
statements that build the ConfigContainer (`cfg = _pretrain_common()`,
`cfg.model.tensor_model_parallel_size = 4`, `cfg.comm_overlap =
CommOverlapConfig(...)`, helper calls such as
`apply_flex_dispatcher_backend(cfg.model, ...)`) are followed into the helper
functions they call, so every field the recipe ends up setting is listed with
its final value. Values the script cannot evaluate without running Bridge
(a field read from the Hugging Face config, a branch on one) are kept as the
Python expression text and listed in the recipe's `unevaluated` notes.

The performance recipes (src/megatron/bridge/perf_recipes/**, one per GPU
system and precision; scripts/performance launches them) are read the same
way. A provider built from a Hugging Face id reads the architecture parplan's
catalog has for that model (so layout builders that divide num_layers
evaluate), and Megatron-Core's parallel defaults.

Only recipes whose model is in parplan's catalog (core/catalog/catalog.json;
recipe-name prefixes in scripts/bridge_recipe_models.json) are kept; the
names of the others are listed for errors. Each recipe also lists the Bridge
tags that define a function of that name or a legacy alias (`git grep` per
tag) and, for every release v0.2.0..v0.6.0, the plan-shaping settings of
that release's recipe of the name that differ from the pinned commit's (the
same evaluation run on the tag). The dataclass fields of every
ConfigContainer section are listed too (Bridge's training/config.py and
model providers, Megatron-Core's classes from the Megatron-LM mirror), so
parplan knows each path by name.

Usage:
  scripts/bridge_recipes.py --mirror /work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo \
      --commit 067f987df03b8355b03192d88d70f1709fedf51a > core/import/bridge_recipe_data.cc

The mirror is not available in CI: the generated file is committed.
"""

import argparse
import ast
import json
import re
import subprocess
import sys

MAX_STEPS = 200000  # evaluation budget per recipe (statements + expressions)
MAX_DEPTH = 40


class Unknown:
    """A value the script cannot compute; keeps the source text."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"<{self.text}>"


class Obj:
    """A constructed config object: its class and the fields set on it."""

    def __init__(self, cls, fields=None, preset=None, defaults=None):
        self.cls = cls
        self.fields = dict(fields or {})
        self.preset = preset  # mixed-precision preset name, model HF id
        # Values read but not set by the recipe: Megatron-Core's parallel
        # defaults and, for a provider built from a Hugging Face id, the
        # architecture parplan's catalog has for that model.
        self.defaults = dict(defaults or {})


class Ref:
    """A module-qualified name that is not a function we follow (torch.bfloat16)."""

    def __init__(self, name):
        self.name = name


class ReturnSignal(Exception):
    def __init__(self, value):
        self.value = value


class StopRecipe(Exception):
    pass


def git(mirror, *args):
    return subprocess.run(["git", "-C", mirror, *args], check=True, capture_output=True, text=True).stdout


class Source:
    """Every module of src/megatron/bridge at the commit: functions, constants, imports."""

    def __init__(self, mirror, commit, root="src/megatron/bridge"):
        self.mirror = mirror
        self.commit = commit
        files = git(mirror, "ls-tree", "-r", "--name-only", commit, root).split()
        self.modules = {}  # dotted module name -> ast.Module
        self.paths = {}
        for f in files:
            if not f.endswith(".py"):
                continue
            mod = (f[len("src/"):] if f.startswith("src/") else f)[:-3].replace("/", ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
            try:
                text = git(mirror, "show", f"{commit}:{f}")
                tree = ast.parse(text)
            except Exception:
                continue
            self.modules[mod] = tree
            self.paths[mod] = f
        self.defs = {}  # (module, name) -> FunctionDef
        self.consts = {}  # (module, name) -> expr node
        self.imports = {}  # (module, local name) -> (module, name)
        for mod, tree in self.modules.items():
            for node in tree.body:
                if isinstance(node, ast.FunctionDef):
                    self.defs[(mod, node.name)] = node
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if isinstance(t, ast.Name) and node.value is not None:
                            self.consts[(mod, t.id)] = node.value
                elif isinstance(node, ast.ImportFrom) and node.module:
                    base = node.module
                    if node.level:
                        parts = mod.split(".")
                        base = ".".join(parts[: len(parts) - node.level + (0 if self.is_package(mod) else 0)])
                        base = f"{base}.{node.module}" if node.module else base
                    for a in node.names:
                        self.imports[(mod, a.asname or a.name)] = (base, a.name)

    def is_package(self, mod):
        return self.paths.get(mod, "").endswith("__init__.py")

    def resolve(self, mod, name, depth=0):
        """(kind, module, name) for a name visible in `mod`: 'def', 'const' or None."""
        if depth > 10:
            return None
        if (mod, name) in self.defs:
            return ("def", mod, name)
        if (mod, name) in self.consts:
            return ("const", mod, name)
        if (mod, name) in self.imports:
            m2, n2 = self.imports[(mod, name)]
            if m2 in self.modules:
                return self.resolve(m2, n2, depth + 1)
        return None


def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class Evaluator:
    def __init__(self, src, notes, hf_arch):
        self.src = src
        self.hf_arch = hf_arch
        self.notes = notes
        self.steps = 0
        self.depth = 0

    def tick(self):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise StopRecipe("evaluation budget exceeded")

    # ---- expressions -------------------------------------------------
    def expr(self, node, env, mod):
        self.tick()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            r = self.src.resolve(mod, node.id)
            if r and r[0] == "const":
                return self.expr(self.src.consts[(r[1], r[2])], {}, r[1])
            if r and r[0] == "def":
                return ("func", r[1], r[2])
            return Ref(node.id)
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value, env, mod)
            if isinstance(base, Obj):
                if node.attr in base.fields:
                    return base.fields[node.attr]
                if node.attr in base.defaults:
                    return base.defaults[node.attr]
                return Unknown(ast.unparse(node))
            if isinstance(base, Ref):
                return Ref(f"{base.name}.{node.attr}")
            if isinstance(base, Unknown):
                return Unknown(ast.unparse(node))
            return Unknown(ast.unparse(node))
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.expr(e.value, env, mod)
                    if isinstance(v, (list, tuple)):
                        out.extend(v)
                    else:
                        return Unknown(ast.unparse(node))
                else:
                    out.append(self.expr(e, env, mod))
            return tuple(out) if isinstance(node, ast.Tuple) else out
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    d = self.expr(v, env, mod)
                    if isinstance(d, dict):
                        out.update(d)
                    else:
                        return Unknown(ast.unparse(node))
                else:
                    kk = self.expr(k, env, mod)
                    if isinstance(kk, (Unknown, Obj, Ref, list, dict)):
                        return Unknown(ast.unparse(node))
                    out[kk] = self.expr(v, env, mod)
            return out
        if isinstance(node, ast.BinOp):
            a, b = self.expr(node.left, env, mod), self.expr(node.right, env, mod)
            seq = (list, tuple)
            if isinstance(node.op, (ast.Add, ast.Mult)) and (isinstance(a, seq) or isinstance(b, seq)):
                try:
                    if isinstance(node.op, ast.Mult) and isinstance(a, seq) and isinstance(b, int) and b > 100000:
                        return Unknown(ast.unparse(node))
                    r = a + b if isinstance(node.op, ast.Add) else a * b
                    # Python's list * n repeats references; the layouts only read them.
                    return [list(x) if isinstance(x, list) else x for x in r] if isinstance(r, list) else r
                except Exception:
                    return Unknown(ast.unparse(node))
            if not plain(a) or not plain(b):
                return Unknown(ast.unparse(node))
            try:
                ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                       ast.Div: lambda: a / b, ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
                       ast.Pow: lambda: a ** b}
                return ops[type(node.op)]()
            except Exception:
                return Unknown(ast.unparse(node))
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, env, mod)
            if not plain(v):
                return Unknown(ast.unparse(node))
            if isinstance(node.op, ast.Not):
                return not v
            if isinstance(node.op, ast.USub):
                return -v
            return v
        if isinstance(node, ast.BoolOp):
            vals = []
            for e in node.values:
                v = self.expr(e, env, mod)
                if not plain(v):
                    return Unknown(ast.unparse(node))
                if isinstance(node.op, ast.And) and not v:
                    return v
                if isinstance(node.op, ast.Or) and v:
                    return v
                vals.append(v)
            return vals[-1]
        if isinstance(node, ast.Compare):
            left = self.expr(node.left, env, mod)
            for op, c in zip(node.ops, node.comparators):
                right = self.expr(c, env, mod)
                if isinstance(op, (ast.Is, ast.IsNot)):
                    if isinstance(left, (Unknown,)) or isinstance(right, Unknown):
                        return Unknown(ast.unparse(node))
                    r = (left is None) == (right is None) if (left is None or right is None) else left == right
                    r = r if isinstance(op, ast.Is) else not r
                else:
                    container_ok = isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (list, dict, tuple))
                    if not plain(left) or not (plain(right) or container_ok):
                        return Unknown(ast.unparse(node))
                    try:
                        r = {ast.Eq: lambda: left == right, ast.NotEq: lambda: left != right,
                             ast.Lt: lambda: left < right, ast.LtE: lambda: left <= right,
                             ast.Gt: lambda: left > right, ast.GtE: lambda: left >= right,
                             ast.In: lambda: left in right, ast.NotIn: lambda: left not in right}[type(op)]()
                    except Exception:
                        return Unknown(ast.unparse(node))
                if not r:
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            t = self.expr(node.test, env, mod)
            if not plain(t):
                return Unknown(ast.unparse(node))
            return self.expr(node.body if t else node.orelse, env, mod)
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value, env, mod)
            idx = self.expr(node.slice, env, mod)
            if isinstance(base, (list, tuple, dict, str)) and plain(idx):
                try:
                    return base[idx]
                except Exception:
                    return Unknown(ast.unparse(node))
            return Unknown(ast.unparse(node))
        if isinstance(node, ast.Call):
            return self.call(node, env, mod)
        if isinstance(node, ast.ListComp) and len(node.generators) == 1 and not node.generators[0].is_async:
            g = node.generators[0]
            it = self.expr(g.iter, env, mod)
            if not isinstance(it, (list, tuple, dict, str)) or len(it) > 100000:
                return Unknown(ast.unparse(node))
            out = []
            local = dict(env)
            for v in list(it):
                self.assign(g.target, v, local, mod)
                conds = [self.expr(c, local, mod) for c in g.ifs]
                if any(not plain(c) for c in conds):
                    return Unknown(ast.unparse(node))
                if all(conds):
                    out.append(self.expr(node.elt, local, mod))
            return out
        if isinstance(node, ast.JoinedStr):
            return Unknown(ast.unparse(node))
        return Unknown(ast.unparse(node))

    def call(self, node, env, mod):
        fname = dotted(node.func)
        args = [self.expr(a, env, mod) for a in node.args if not isinstance(a, ast.Starred)]
        kwargs = {}
        for k in node.keywords:
            v = self.expr(k.value, env, mod)
            if k.arg is None:
                if isinstance(v, dict):
                    kwargs.update(v)
                continue
            kwargs[k.arg] = v
        # The model provider: from a Hugging Face id.
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("get_model_config", "to_megatron_provider"):
            inner = node.func.value
            if isinstance(inner, ast.Call) and dotted(inner.func) in ("AutoBridge.from_hf_pretrained",):
                hf = self.expr(inner.args[0], env, mod) if inner.args else None
                hf = hf if isinstance(hf, str) else None
                return Obj("AutoBridge", {}, preset=hf, defaults={**PROVIDER_DEFAULTS, **self.hf_arch.get(hf, {})})
            return Obj("ModelProvider", {}, preset=None, defaults=PROVIDER_DEFAULTS)
        if isinstance(node.func, ast.Attribute):
            base = self.expr(node.func.value, env, mod)
            if isinstance(base, list) and node.func.attr in ("append", "extend"):
                if node.func.attr == "append" and args:
                    base.append(args[0])
                elif args and isinstance(args[0], (list, tuple)):
                    base.extend(args[0])
                return None
            if isinstance(base, dict) and node.func.attr in ("get", "update", "items", "keys", "values"):
                try:
                    if node.func.attr == "update" and args and isinstance(args[0], dict):
                        base.update(args[0])
                        return None
                    if node.func.attr == "get":
                        return base.get(*args)
                    return list(getattr(base, node.func.attr)())
                except Exception:
                    return Unknown(ast.unparse(node))
            if isinstance(base, str) and node.func.attr in ("lower", "upper", "strip", "startswith", "endswith",
                                                             "replace", "split", "join", "format"):
                try:
                    return getattr(base, node.func.attr)(*args)
                except Exception:
                    return Unknown(ast.unparse(node))
        if fname == "divmod" and len(args) == 2 and all(isinstance(a, int) for a in args) and args[1]:
            return divmod(args[0], args[1])
        if fname in ("len", "int", "float", "str", "bool", "max", "min", "list", "tuple", "sum", "range",
                     "isinstance", "abs", "dict", "sorted", "any", "all", "enumerate", "zip"):
            if fname == "isinstance":
                return self.isinstance_of(node, env, mod)
            if all(plain(a) or isinstance(a, (list, tuple, dict)) for a in args) and not kwargs:
                try:
                    v = {"len": len, "int": int, "float": float, "str": str, "bool": bool, "max": max, "min": min,
                         "list": list, "tuple": tuple, "sum": sum, "range": lambda *a: list(range(*a)), "abs": abs,
                         "dict": dict, "sorted": sorted, "any": any, "all": all,
                         "enumerate": lambda *a: list(enumerate(*a)), "zip": lambda *a: list(zip(*a))}[fname](*args)
                    return v
                except Exception:
                    return Unknown(ast.unparse(node))
            return Unknown(ast.unparse(node))
        if fname == "hasattr" and len(args) == 2 and isinstance(args[1], str) and isinstance(args[0], Obj):
            if args[1] in args[0].fields or args[1] in args[0].defaults:
                return True
            return Unknown(ast.unparse(node))
        if fname == "getattr" and len(args) >= 2 and isinstance(args[1], str):
            if isinstance(args[0], Obj) and args[1] in args[0].fields:
                return args[0].fields[args[1]]
            if isinstance(args[0], Obj) and args[1] in args[0].defaults:
                return args[0].defaults[args[1]]
            return Unknown(ast.unparse(node))
        if fname in ("cast", "typing.cast") and len(args) == 2:
            return args[1]
        if fname in ("os.getcwd", "os.path.join", "os.environ.get"):
            return Unknown(ast.unparse(node))
        target = self.expr(node.func, env, mod) if isinstance(node.func, ast.Name) else None
        if isinstance(target, tuple) and target and target[0] == "func":
            _, fmod, fn = target
            if fmod.endswith("training.mixed_precision") and fn == "get_mixed_precision_config":
                return Obj("MixedPrecisionConfig", {}, preset=args[0] if args else kwargs.get("name"))
            if fmod.endswith("training.mixed_precision"):
                return Obj("MixedPrecisionConfig", {}, preset=fn)
            if fn in ("warn_deprecated_model",):
                return None
            return self.run_function(fmod, fn, args, kwargs)
        # A class (a config constructor) or anything else.
        name = fname or ast.unparse(node.func)
        last = name.split(".")[-1]
        if last[:1].isupper():
            return Obj(last, kwargs, defaults=PROVIDER_DEFAULTS if last.endswith("Provider") else None)
        self.notes.append(f"not followed: {ast.unparse(node)[:160]}")
        return Unknown(ast.unparse(node))

    def isinstance_of(self, node, env, mod):
        if len(node.args) != 2:
            return Unknown(ast.unparse(node))
        v = self.expr(node.args[0], env, mod)
        if isinstance(v, Unknown):
            return Unknown(ast.unparse(node))
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        py = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "tuple": tuple}
        for k in kinds:
            n = dotted(k) or ""
            if n in py:
                if isinstance(v, py[n]) and not (n == "int" and isinstance(v, bool)):
                    return True
            elif isinstance(v, Obj):
                if v.cls == n.split(".")[-1]:
                    return True
                return Unknown(ast.unparse(node))  # a subclass test the script cannot answer
        return False

    def run_function(self, fmod, fn, args, kwargs):
        fdef = self.src.defs[(fmod, fn)]
        if self.depth > MAX_DEPTH:
            raise StopRecipe("call depth exceeded")
        env = {}
        a = fdef.args
        params = a.posonlyargs + a.args
        defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
        for i, p in enumerate(params):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif defaults[i] is not None:
                env[p.arg] = self.expr(defaults[i], {}, fmod)
            else:
                env[p.arg] = Unknown(p.arg)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif d is not None:
                env[p.arg] = self.expr(d, {}, fmod)
            else:
                env[p.arg] = Unknown(p.arg)
        if a.kwarg:
            env[a.kwarg.arg] = {k: v for k, v in kwargs.items() if k not in env}
        self.depth += 1
        try:
            self.block(fdef.body, env, fmod)
        except ReturnSignal as r:
            return r.value
        finally:
            self.depth -= 1
        return None

    # ---- statements --------------------------------------------------
    def assign(self, target, value, env, mod):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (list, tuple)) and len(value) == len(target.elts):
                for t, v in zip(target.elts, value):
                    self.assign(t, v, env, mod)
            else:
                for t in target.elts:
                    self.assign(t, Unknown(ast.unparse(target)), env, mod)
        elif isinstance(target, ast.Attribute):
            base = self.lvalue(target.value, env, mod)
            if isinstance(base, Obj):
                base.fields[target.attr] = value
            else:
                self.notes.append(f"assignment on an unknown object: {ast.unparse(target)}")
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value, env, mod)
            idx = self.expr(target.slice, env, mod)
            if isinstance(base, (dict, list)) and plain(idx):
                try:
                    base[idx] = value
                except Exception:
                    pass

    def lvalue(self, node, env, mod):
        # A ConfigContainer section the recipe assigns into before creating it
        # (cfg.rerun_state_machine.x = ...) is its default object.
        if isinstance(node, ast.Attribute):
            base = self.lvalue(node.value, env, mod)
            if isinstance(base, Obj) and base.cls == "ConfigContainer" and node.attr not in base.fields:
                base.fields[node.attr] = Obj(node.attr)
            if isinstance(base, Obj):
                return base.fields.get(node.attr, Unknown(ast.unparse(node)))
            return Unknown(ast.unparse(node))
        return self.expr(node, env, mod)

    def block(self, stmts, env, mod):
        for s in stmts:
            self.stmt(s, env, mod)

    def stmt(self, s, env, mod):
        self.tick()
        if isinstance(s, ast.Assign):
            v = self.expr(s.value, env, mod)
            for t in s.targets:
                self.assign(t, v, env, mod)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value, env, mod), env, mod)
        elif isinstance(s, ast.AugAssign):
            cur = self.expr(s.target, env, mod)
            v = self.expr(s.value, env, mod)
            try:
                new = {ast.Add: lambda: cur + v, ast.Sub: lambda: cur - v, ast.Mult: lambda: cur * v}[type(s.op)]()
            except Exception:
                new = Unknown(ast.unparse(s))
            self.assign(s.target, new, env, mod)
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Call):
                self.expr(s.value, env, mod)
        elif isinstance(s, ast.Return):
            raise ReturnSignal(self.expr(s.value, env, mod) if s.value is not None else None)
        elif isinstance(s, ast.If):
            t = self.expr(s.test, env, mod)
            if isinstance(t, (Unknown, Ref, Obj)):
                self.notes.append(f"branch not evaluated (depends on {ast.unparse(s.test)[:120]})")
                return
            self.block(s.body if t else s.orelse, env, mod)
        elif isinstance(s, ast.For):
            it = self.expr(s.iter, env, mod)
            if not isinstance(it, (list, tuple, dict, str)):
                self.notes.append(f"loop not evaluated: for {ast.unparse(s.target)} in {ast.unparse(s.iter)[:80]}")
                return
            for i, v in enumerate(list(it)):
                if i > 10000:
                    raise StopRecipe("loop bound")
                self.assign(s.target, v, env, mod)
                self.block(s.body, env, mod)
        elif isinstance(s, (ast.Try,)):
            self.block(s.body, env, mod)
        elif isinstance(s, ast.With):
            self.block(s.body, env, mod)
        elif isinstance(s, ast.Raise):
            raise StopRecipe(f"raises: {ast.unparse(s)[:120]}")
        elif isinstance(s, (ast.Assert, ast.Pass, ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Delete,
                            ast.Global, ast.Nonlocal)):
            return
        else:
            self.notes.append(f"statement not evaluated: {ast.unparse(s)[:80]}")


# Megatron-Core ModelParallelConfig defaults (megatron/core/model_parallel_config.py).
PROVIDER_DEFAULTS = {
    "tensor_model_parallel_size": 1,
    "pipeline_model_parallel_size": 1,
    "virtual_pipeline_model_parallel_size": None,
    "context_parallel_size": 1,
    "expert_model_parallel_size": 1,
    "expert_tensor_parallel_size": None,
    "sequence_parallel": False,
    # megatron/core/transformer/transformer_config.py use_transformer_engine_op_fuser
    # (Bridge models/gpt_provider.py:169): False.
    "use_transformer_engine_op_fuser": False,
}


def plain(v):
    return v is None or isinstance(v, (bool, int, float, str, tuple))


def render(v):
    """A value as the Hydra-style override text parplan reads back."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return v
    if isinstance(v, Ref):
        return v.name
    if isinstance(v, Unknown):
        return "${" + v.text + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(render_item(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{render_item(x)}" for k, x in v.items()) + "}"
    if isinstance(v, Obj):
        return v.cls
    if isinstance(v, tuple) and v and v[0] == "func":
        return v[2]
    return str(v)


def render_item(v):
    if isinstance(v, str):
        return json.dumps(v)
    return render(v)


def flatten(obj, prefix, out, seen):
    if id(obj) in seen:
        return
    seen = seen | {id(obj)}
    for k, v in obj.fields.items():
        path = f"{prefix}.{k}" if prefix else k
        if isinstance(v, Obj):
            if v.cls == "MixedPrecisionConfig" and v.preset is not None:
                out.append((path, render(v.preset)))
            elif v.cls == "AutoBridge":
                pass  # the provider is the recipe's `provider` / `hf_model_id`
            elif v.cls[:1].isupper():
                out.append((path + "._target_", v.cls))
            flatten(v, path, out, seen)
        elif isinstance(v, tuple) and v and v[0] == "func":
            out.append((path, v[2]))
        else:
            out.append((path, render(v)))


SYSTEM_RE = re.compile(r"_(\d+)gpu_([a-z]+[0-9]+)_")


def task_of(name):
    for t in ("pretrain", "sft", "peft"):
        if f"_{t}_" in name or name.endswith(f"_{t}") or f"_{t}" in name:
            return t
    if "finetune" in name:
        return "sft"
    return None


# ConfigContainer sections whose fields parplan knows by name: the dataclass
# each section holds (src/megatron/bridge/training/config.py:962
# ConfigContainer at 067f987df0), with the Megatron-Core / Megatron-LM
# classes they extend read from the Megatron-LM mirror.
SECTION_CLASSES = {
    "train": ["TrainingConfig"],
    "validation": ["ValidationConfig"],
    "optimizer": ["OptimizerConfig"],
    "ddp": ["DistributedDataParallelConfig"],
    "scheduler": ["SchedulerConfig"],
    "dist": ["DistributedInitConfig"],
    "rng": ["RNGConfig"],
    "rerun_state_machine": ["RerunStateMachineConfig"],
    "comm_overlap": ["CommOverlapConfig"],
    "mixed_precision": ["MixedPrecisionConfig"],
    "profiling": ["ProfilingConfig"],
    "peft": ["LoRA", "DoRA", "PEFT"],
    "model": ["TransformerConfig", "MLATransformerConfig", "ModelParallelConfig"],
}


class ClassIndex:
    """Dataclass fields by class name across Bridge and Megatron-LM sources."""

    def __init__(self, sources):
        self.classes = {}  # name -> [(module, ClassDef, imports)]
        for src in sources:
            for mod, tree in src.modules.items():
                for node in tree.body:
                    if isinstance(node, ast.ClassDef):
                        self.classes.setdefault(node.name, []).append((mod, node, src))

    def fields(self, name, depth=0):
        out = set()
        if depth > 12:
            return out
        for mod, node, src in self.classes.get(name, []):
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    out.add(st.target.id)
            for b in node.bases:
                bn = dotted(b)
                if not bn:
                    continue
                bn = bn.split(".")[-1]
                real = src.imports.get((mod, bn), (None, bn))[1]
                out |= self.fields(real, depth + 1)
        return {f for f in out if not f.startswith("__")}


def config_fields(bridge_src, mlm_src):
    idx = ClassIndex([bridge_src, mlm_src])
    out = {}
    for section, classes in SECTION_CLASSES.items():
        names = set()
        for c in classes:
            names |= idx.fields(c)
        if section == "model":
            for cname, defs in idx.classes.items():
                if cname.endswith("Provider") and any(".bridge.models" in m for m, _, _ in defs):
                    names |= idx.fields(cname)
        out[section] = sorted(names)
    return out


def collect(src, args, prefix_to_id, hf_to_id, hf_arch, with_versions):
    """The recipes of catalog models in `src`, each with every setting it sets."""
    # Recipe functions: public *_config functions defined in recipes/**, and
    # the legacy names the family modules import them as.
    recipes = {}
    aliases = {}
    # Library recipes first: a performance recipe of the same name is skipped
    # (run_recipe.py resolves a name to one function).
    ordered = sorted(src.defs.items(), key=lambda kv: ".perf_recipes." in kv[0][0])
    for (mod, name), fdef in ordered:
        if not (".recipes." in mod or ".perf_recipes." in mod) or ".utils" in mod:
            continue
        if name.startswith("_") or not name.endswith("_config"):
            continue
        if name in recipes:
            print(f"duplicate recipe name {name}: {recipes[name][0]} and {mod}", file=sys.stderr)
            continue
        recipes[name] = (mod, fdef)
    for (mod, local), (m2, n2) in src.imports.items():
        if ".recipes." in mod and ".perf_recipes." not in mod and local != n2 and n2 in recipes and local.endswith("_config"):
            aliases.setdefault(n2, []).append(local)

    tags = [t for t in git(args.mirror, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)] if with_versions else []
    defined_in = {}
    for t in tags:
        try:
            out = git(args.mirror, "grep", "-h", "-o", "-E", r"def [a-z0-9_]+_config\b|as [a-z0-9_]+_config\b", t,
                      "--", "src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes")
        except subprocess.CalledProcessError:
            out = ""
        defined_in[t] = {w.split()[1] for w in out.splitlines()}

    out = []
    for name in sorted(recipes):
        mod, fdef = recipes[name]
        task = task_of(name)
        if task is None:
            continue
        model_id = None
        matched = False
        for p in sorted(prefix_to_id, key=len, reverse=True):
            if name == p or name.startswith(p + "_"):
                model_id, matched = prefix_to_id[p], True
                break
        if matched and model_id is None:
            OTHER_RECIPES.update([name] + aliases.get(name, []))
            continue
        notes = []
        ev = Evaluator(src, notes, hf_arch)
        err = None
        try:
            cfg = ev.run_function(mod, name, [], {})
        except StopRecipe as e:
            cfg, err = None, str(e)
        if not isinstance(cfg, Obj):
            print(f"skip {name}: {err or 'no ConfigContainer'}", file=sys.stderr)
            continue
        settings = []
        flatten(cfg, "", settings, set())
        hf = None
        model = cfg.fields.get("model")
        if isinstance(model, Obj) and model.cls == "AutoBridge":
            hf = model.preset
        if hf and hf in hf_to_id and model_id is None and not matched:
            model_id = hf_to_id[hf]
        if model_id is None:
            OTHER_RECIPES.update([name] + aliases.get(name, []))
            continue
        provider = model.cls if isinstance(model, Obj) and model.cls != "AutoBridge" else f"AutoBridge({hf})"
        m = SYSTEM_RE.search(name)
        names = [name] + sorted(set(aliases.get(name, [])))
        versions = [t[1:] for t in tags if any(n in defined_in[t] for n in names)]
        out.append({
            "name": name,
            "aliases": names[1:],
            "task": task,
            "model_id": model_id,
            "provider": provider,
            "hf_model_id": hf or "",
            "gpus": int(m.group(1)) if m else 0,
            "gpu": m.group(2) if m else "",
            "source": f"{src.paths[mod]}:{fdef.lineno}",
            "kind": "performance" if ".perf_recipes." in mod else "recipe",
            "versions": versions,
            "settings": [[p, v] for p, v in settings],
            "unevaluated": sorted(set(notes)),
        })
    return out


# Recipe functions of models parplan's catalog does not have (for errors).
OTHER_RECIPES = set()


# Paths whose older values are recorded: what shapes the plan (not logging,
# data paths, the learning-rate schedule, tokenizer or userbuffer tuning).
HISTORY_SKIP = ("logger.", "checkpoint.", "tokenizer.", "scheduler.", "validation.", "rng.", "env_vars",
                "comm_overlap.tp_comm_overlap_cfg.", "dataset.blend", "dataset.split", "dataset.num_workers")
HISTORY_TAGS = ("v0.2.0", "v0.2.1", "v0.2.2", "v0.3.0", "v0.3.1", "v0.4.0", "v0.4.1", "v0.4.2", "v0.5.0", "v0.5.1",
                "v0.6.0")


def add_history(out, args, prefix_to_id, hf_to_id, hf_arch):
    """Adds to each recipe the settings that differ in each older release.

    A release's recipe is the function of the same name there, else of one
    of its legacy aliases (the names releases before the per-system files
    used). `history` lists, per release, the paths whose value there differs
    from the pinned commit's ("<unset>" = that release's recipe leaves it).
    """
    by_name = {}
    for r in out:
        for n in [r["name"]] + r["aliases"]:
            by_name.setdefault(n, r)
    for tag in HISTORY_TAGS:
        try:
            src = Source(args.mirror, tag)
        except subprocess.CalledProcessError:
            continue
        old = {r["name"]: r for r in collect(src, args, prefix_to_id, hf_to_id, hf_arch, False)}
        for r in out:
            match = None
            for n in [r["name"]] + r["aliases"]:
                if n in old:
                    match = old[n]
                    break
            if match is None:
                continue
            now = dict((p, v) for p, v in r["settings"])
            then = dict((p, v) for p, v in match["settings"])
            differs = []
            for p in sorted(set(now) | set(then)):
                if p.startswith(HISTORY_SKIP) or p.endswith("._target_"):
                    continue
                a, b = now.get(p, "<unset>"), then.get(p, "<unset>")
                if a != b and not (a.startswith("${") and b.startswith("${")):
                    differs.append([p, b])
            r.setdefault("history", []).append({"version": tag[1:], "function": match["name"], "differs": differs})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--catalog", default="core/catalog/catalog.json")
    ap.add_argument("--model-map", default="scripts/bridge_recipe_models.json")
    ap.add_argument("--megatron-mirror", default="/work/.mirror/NVIDIA+Megatron-LM/repo")
    ap.add_argument("--megatron-commit", default="d98e8a64ddf34856e74b24714e3bedb2f5a39553")
    args = ap.parse_args()
    src = Source(args.mirror, args.commit)
    catalog = json.load(open(args.catalog))
    hf_to_id = {m["hf_id"]: m["id"] for m in catalog["models"] if m.get("hf_id")}
    extra = json.load(open(args.model_map))
    hf_to_id.update(extra.get("hf_ids", {}))
    prefix_to_id = extra["name_prefixes"]
    hf_arch = {m["hf_id"]: {k: v for k, v in m["arch"].items() if v is not None}
               for m in catalog["models"] if m.get("hf_id")}  # recipe name prefix -> catalog id (longest match wins)

    out = collect(src, args, prefix_to_id, hf_to_id, hf_arch, True)
    other = sorted(OTHER_RECIPES)
    add_history(out, args, prefix_to_id, hf_to_id, hf_arch)
    doc = {
        "_meta": {
            "generated_by": "scripts/bridge_recipes.py",
            "bridge_commit": args.commit,
            "versions": "Bridge release tags (vX.Y.Z) whose src/megatron/bridge/recipes define a function or alias of the recipe's name",
            "history": "per release: the function of that name (or a legacy alias) there and the plan-shaping paths whose value differs from the pinned commit's (<unset> = not set there)",
            "other_recipes": "recipe functions at the commit whose model is not in parplan's catalog (names only)",
            "config_fields": "dataclass fields of each ConfigContainer section (Bridge 067f987df0 training/config.py and model providers; Megatron-Core classes at the Megatron-LM commit)",
            "values": "Hydra override text; ${expr} = a value set from an expression the script does not evaluate (read from the Hugging Face config at run time)",
        },
        "recipes": out,
        "other_recipes": other,
        "config_fields": config_fields(src, Source(args.megatron_mirror, args.megatron_commit, "megatron")),
    }
    write_cc(doc, sys.stdout)


CHUNK = 60000  # characters per string literal (a portable literal size)


def write_cc(doc, out):
    """core/import/bridge_recipe_data.cc: the JSON, one recipe per line, in raw string literals."""
    lines = ["{\"_meta\":" + json.dumps(doc["_meta"]) + ",\"recipes\":["]
    for i, r in enumerate(doc["recipes"]):
        lines.append(json.dumps(r, separators=(",", ":")) + ("," if i + 1 < len(doc["recipes"]) else ""))
    lines.append("],\"other_recipes\":" + json.dumps(doc["other_recipes"], separators=(",", ":")))
    lines.append(",\"config_fields\":" + json.dumps(doc["config_fields"], separators=(",", ":")) + "}")
    text = "\n".join(lines) + "\n"
    parts = []
    cur = ""
    for line in text.splitlines(keepends=True):
        if cur and len(cur) + len(line) > CHUNK:
            parts.append(cur)
            cur = ""
        cur += line
    parts.append(cur)
    out.write("// Generated by scripts/bridge_recipes.py from Megatron Bridge " + doc["_meta"]["bridge_commit"] + ".\n")
    out.write("// Do not edit: rerun the script (see its header) against the Bridge mirror.\n")
    out.write("// clang-format off\n")
    out.write('#include "core/import/bridge_recipe_data.h"\n\nnamespace parplan {\n\n')
    out.write("const char* const kBridgeRecipeJsonParts[] = {\n")
    for p in parts:
        assert ")bjson\"" not in p
        out.write('R"bjson(' + p + ')bjson",\n')
    out.write("};\nconst size_t kBridgeRecipeJsonPartCount = sizeof(kBridgeRecipeJsonParts) / sizeof(kBridgeRecipeJsonParts[0]);\n")
    out.write("\n}  // namespace parplan\n// clang-format on\n")

if __name__ == "__main__":
    main()
