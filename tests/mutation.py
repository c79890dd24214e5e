"""Mutation testing of the write-the-function and find-the-bug checkers.

For every such exercise, the book's own solution (the listing in its folded ``{solution}``
block) is mutated, one small change at a time, in the ways a reader slips: an axis swapped,
``keepdims`` dropped, a maximum replaced by a mean, a minimum, the first entry or 0, a
subtraction dropped, two shape entries swapped, a transpose dropped or operands of ``@``
swapped, a constant changed, a mask removed or inverted, ``...`` replaced by ``:``, the
result squeezed. Each mutant is run through the exercise's checker: it must be refused
(*killed*), or be listed in :data:`EQUIVALENT` with the reason a reader can check.

Why a short AST mutator rather than mutmut or cosmic-ray: those mutate a package's source
files and run a test command per mutant; here the code under mutation is a listing inside
a Markdown cell of a notebook, the "test" is one call of ``check``, and the operators we need
are numpy's (axes, ``keepdims``, reductions, transposes, masks), which neither tool has.
Beyond the issue's list, three of a red team's finds: ``np.maximum(m, x)`` replaced by one
side (a running maximum that forgets), ``np.inf`` replaced by 1e9 or 0 (a maximum that
starts at 0), and ``positions`` replaced by ``np.arange(len(positions))`` (ignored).

Run ``python tests/mutation.py`` for the table; ``tests/test_mutation.py`` holds it at 100 %.
"""

from __future__ import annotations

import ast
import builtins
import copy
import os
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
FUNCTION_KINDS = ("write the function", "find the bug")

# Mutants that compute the same function on every input the exercise allows, with why.
# Key: (exercise id, the mutant's description as ``describe`` prints it).
_STARTS = (
    "a running statistic that starts with shape (1,) instead of (..., L, 1) broadcasts to every "
    "row at the first update: each row starts from the same -inf (or 0) either way"
)
EQUIVALENT: dict[tuple[str, str], str] = {
    (
        "bug-mask-fully-masked",
        "1.0 → 2.0  in  return e / np.where(total > 0, total, 1.0)",
    ): "the divisor replaces a total of 0, which happens only in a fully masked row, whose "
    "exponentials are all 0: 0 / 1 and 0 / 2 are both 0",
    (
        "bug-mask-fully-masked",
        "0 → 1  in  return e / np.where(total > 0, total, 1.0)",
    ): "a row with a visible key has total >= 1 (its largest exponential is e^0 = 1); where "
    "total is exactly 1, dividing by total or by 1.0 is the same",
    (
        "ch6-rope-relative",
        "offset * theta → offset  in  phi = offset * theta",
    ): "the question fixes θ = 1 radian (d = 2), so offset · θ is offset",
    ("bug-online-sum", "1 → 0  in  m = np.full((*q.shape[:-1], 1), -np.inf) (#2)"): _STARTS,
    ("bug-online-sum", "1 → 0  in  total = np.zeros((*q.shape[:-1], 1)) (#2)"): _STARTS,
    ("bug-online-sum", "1 → 0  in  out = np.zeros((*q.shape[:-1], v.shape[-1])) (#2)"): (
        "an output that starts with shape (d_v,) instead of (..., L, d_v) broadcasts to every "
        "row at the first update, where it is 0 either way"
    ),
}


@dataclass(frozen=True)
class Solution:
    """One exercise's typed solution: the listing, its function's name, and its namespace."""

    chapter: str
    exercise: object
    code: str  # the listing without its final ``check`` call
    name: str  # the function handed to ``check``
    namespace: dict


@dataclass(frozen=True)
class Mutant:
    description: str
    code: str


# ---------------------------------------------------------------------- the operators

REDUCTIONS = {"max": ("mean", "min"), "min": ("mean", "max"), "sum": ("mean",), "mean": ("sum",)}
NP_SWAPS = {"maximum": "minimum", "minimum": "maximum", "max": "mean", "amax": "mean"}
TRANSPOSES = {"swapaxes", "transpose", "matrix_transpose", "moveaxis"}


def _int_of(node):
    """The int a node spells (``2``, ``-1``), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _int_node(value):
    return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))


def _other_axes(axis):
    return {-1: (-2, 0), -2: (-1, -3), 0: (1, -1), 1: (0, 2), 2: (1, -1), -3: (-2, -1)}.get(
        axis, (axis + 1,)
    )


def _replacements(node):
    """(new node, why) for every mutation of ``node`` itself (its children are visited apart)."""
    out = []
    if isinstance(node, ast.keyword) and node.arg == "axis":
        axis = _int_of(node.value)
        for other in _other_axes(axis) if axis is not None else ():
            out.append(ast.keyword("axis", _int_node(other)))
    if isinstance(node, ast.Call):
        kws = node.keywords
        for i, kw in enumerate(kws):
            if kw.arg == "keepdims":
                out.append(ast.Call(node.func, node.args, kws[:i] + kws[i + 1 :]))
        func = node.func
        if isinstance(func, ast.Attribute):
            is_np = isinstance(func.value, ast.Name) and func.value.id == "np"
            names = NP_SWAPS.get(func.attr, ()) if is_np else REDUCTIONS.get(func.attr, ())
            for other in [names] if isinstance(names, str) else names:
                out.append(ast.Call(ast.Attribute(func.value, other, ast.Load()), node.args, kws))
            if not is_np and func.attr in ("max", "min"):
                out.append(ast.Constant(0.0))  # 0 as the starting maximum
                out.append(_first_entry(func.value, kws))
            if is_np and func.attr in ("max", "amax", "min") and node.args:
                out.append(ast.Constant(0.0))
                out.append(_first_entry(node.args[0], kws))
            if func.attr in TRANSPOSES:
                target = node.args[0] if is_np and node.args else func.value
                if not is_np or node.args:
                    out.append(target)
            if is_np and func.attr == "where" and len(node.args) == 3:
                cond, a, b = node.args
                out.append(a)  # the mask removed
                out.append(ast.Call(func, [cond, b, a], kws))  # the mask inverted
            if is_np and func.attr in ("sqrt", "exp", "argsort"):
                out += node.args[:1]
            if is_np and func.attr == "einsum" and node.args:
                out += [
                    ast.Call(func, [spec, *node.args[1:]], kws)
                    for spec in _einsum_slips(node.args[0])
                ]
            if is_np and func.attr in ("maximum", "minimum") and len(node.args) == 2:
                out += node.args  # the running maximum replaced by one side alone
    if isinstance(node, ast.Attribute) and node.attr == "T":
        out.append(node.value)
    if isinstance(node, ast.Attribute) and node.attr == "inf":
        out += [ast.Constant(1e9), ast.Constant(0.0)]  # -inf as -1e9, or a maximum from 0
    if isinstance(node, ast.Name) and "position" in node.id and isinstance(node.ctx, ast.Load):
        arange = ast.Attribute(ast.Name("np", ast.Load()), "arange", ast.Load())
        length = ast.Call(ast.Name("len", ast.Load()), [node], [])
        out.append(ast.Call(arange, [length], []))  # the positions ignored: 0, 1, 2, …
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Sub):
            out.append(node.left)  # the subtraction dropped
            out.append(ast.BinOp(node.right, ast.Sub(), node.left))
        if isinstance(node.op, ast.Add):
            out.append(ast.BinOp(node.left, ast.Sub(), node.right))
        if isinstance(node.op, ast.Div):
            out.append(ast.BinOp(node.left, ast.Mult(), node.right))
            out.append(node.left)
        if isinstance(node.op, ast.Mult):
            out.append(node.left)
            out.append(node.right)
        if isinstance(node.op, ast.MatMult):
            out.append(ast.BinOp(node.right, ast.MatMult(), node.left))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Invert | ast.Not):
        out.append(node.operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        flips = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
        flips |= {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
        op = type(node.ops[0])
        if op in flips:
            out.append(ast.Compare(node.left, [flips[op]()], node.comparators))
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        value = node.value
        if type(value) is int:
            out += [ast.Constant(value + 1)] + ([ast.Constant(value - 1)] if value > 0 else [])
        elif value not in (0.0,) and abs(value) < 1e6:
            out.append(ast.Constant(value * 2))
    if isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            i = _int_of(index)
            for other in _other_axes(i) if i is not None else ():
                out.append(ast.Subscript(node.value, _int_node(other), ast.Load()))
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
            new = [ast.Slice() if _is_ellipsis(p) else p for p in parts]
            new_index = ast.Tuple(new, ast.Load()) if len(new) > 1 else new[0]
            out.append(ast.Subscript(node.value, new_index, node.ctx))
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
        names = node.targets[0].elts
        if len(names) >= 2:
            swapped = [names[1], names[0], *names[2:]]
            out.append(ast.Assign([ast.Tuple(swapped, ast.Store())], node.value))
    if isinstance(node, ast.Return) and node.value is not None:
        squeeze = ast.Attribute(ast.Name("np", ast.Load()), "squeeze", ast.Load())
        out.append(ast.Return(ast.Call(squeeze, [node.value], [])))
    return out


def _einsum_slips(spec):
    """An einsum's subscripts with the output's last two letters swapped, or without ``...``."""
    if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str) and "->" in spec.value):
        return []
    inputs, output = spec.value.split("->")
    slips = []
    if len(output.replace("...", "")) >= 2:
        slips.append(f"{inputs}->{output[:-2]}{output[-1]}{output[-2]}")
    if "..." in spec.value:
        slips.append(spec.value.replace("...", ""))
    return [ast.Constant(s) for s in slips]


def _is_ellipsis(node):
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _first_entry(array, keywords):
    """``array[..., :1]`` (or ``array[..., 0]`` without keepdims): the first score as the max."""
    keep = any(k.arg == "keepdims" for k in keywords)
    last = ast.Slice(None, ast.Constant(1)) if keep else ast.Constant(0)
    return ast.Subscript(array, ast.Tuple([ast.Constant(...), last], ast.Load()), ast.Load())


def mutants(code, name):
    """Every one-change mutant of the function ``name`` defined in ``code``."""
    tree = ast.parse(code)
    target = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    sites = [n for stmt in target.body for n in ast.walk(stmt)]
    lines = code.splitlines()
    seen, found = Counter(), []
    for site_index, node in enumerate(sites):
        for new in _replacements(node):
            mutated = copy.deepcopy(tree)
            fn = next(
                n for n in ast.walk(mutated) if isinstance(n, ast.FunctionDef) and n.name == name
            )
            node_copy = [n for stmt in fn.body for n in ast.walk(stmt)][site_index]
            if not _replace(fn, node_copy, new):
                continue
            ast.fix_missing_locations(mutated)
            try:
                text = ast.unparse(mutated)
                compile(text, "<mutant>", "exec")
            except (SyntaxError, ValueError):
                continue
            line = lines[node.lineno - 1].strip() if hasattr(node, "lineno") else ""
            description = f"{_short(node)} → {_short(new)}"
            if line and line != ast.unparse(node):
                description += f"  in  {line}"
            seen[description] += 1
            if seen[description] > 1:
                description += f" (#{seen[description]})"
            found.append(Mutant(description, text))
    return found


def _short(node):
    text = ast.unparse(node)
    return text if len(text) <= 70 else text[:67] + "..."


def _replace(root, old, new):
    """Put ``new`` where ``old`` is in ``root``; False if not found."""
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return True
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return True
    return False


# ---------------------------------------------------------------------- the solutions


def _free_names(code):
    tree = ast.parse(code)
    stored = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    stored |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    stored |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    loaded = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    return loaded - stored - set(dir(builtins))


@cache
def solutions():
    """Every write-the-function and find-the-bug exercise's book solution, in book order."""
    import jupytext

    sys.path.insert(0, str(ROOT / "tests"))
    from test_solutions import solutions as listings

    found = []
    for path in sorted(BOOK.glob("[0-9][0-9]_*.py")):
        notebook = jupytext.read(path)
        code_cells = [c.source for c in notebook.cells if c.cell_type == "code"]
        namespace, ran = {}, 1
        exec(code_cells[0], namespace)
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            for _, code in listings(cell.source):
                tree = ast.parse(code)
                call = tree.body[-1].value if isinstance(tree.body[-1], ast.Expr) else None
                if not (isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "check"):
                    continue
                exercise = eval(ast.unparse(call.func.value), namespace)
                if exercise.kind not in FUNCTION_KINDS or not isinstance(call.args[0], ast.Name):
                    continue
                body = ast.unparse(ast.Module(tree.body[:-1], []))
                # the chapter's cells, run in order until every name the listing needs exists
                while _free_names(body) - namespace.keys() and ran < len(code_cells):
                    exec(code_cells[ran], namespace)
                    ran += 1
                found.append(Solution(path.stem, exercise, body, call.args[0].id, namespace))
    return found


def run_mutant(solution, mutant):
    """True if the checker refuses the mutant (it is killed)."""
    namespace = dict(solution.namespace)
    try:
        exec(compile(mutant.code, "<mutant>", "exec"), namespace)
    except Exception:
        return True  # the listing itself fails: a reader would see it at once
    return not solution.exercise.check(namespace[solution.name]).ok


@dataclass
class Result:
    solution: Solution
    mutants: list
    survivors: list  # (mutant, reason or None)

    @property
    def unexplained(self):
        return [m for m, why in self.survivors if why is None]


def run(only=None):
    """Every exercise's mutants, run: a list of :class:`Result`."""
    results = []
    for solution in solutions():
        if only and solution.exercise.id not in only:
            continue
        ms = mutants(solution.code, solution.name)
        if run_mutant(solution, Mutant("the solution itself", solution.code)):
            raise AssertionError(f"{solution.exercise.id}: the book's own solution is refused")
        survivors = []
        for mutant in ms:
            if not run_mutant(solution, mutant):
                why = EQUIVALENT.get((solution.exercise.id, mutant.description))
                survivors.append((mutant, why))
        results.append(Result(solution, ms, survivors))
    return results


def table(results):
    """The score per chapter: killed / (mutants − equivalent)."""
    head = ("chapter", "exercises", "mutants", "equivalent", "killed", "score")
    lines = [f"{head[0]:<22} " + " ".join(f"{h:>10}" for h in head[1:])]
    by_chapter = {}
    for r in results:
        by_chapter.setdefault(r.solution.chapter, []).append(r)
    for chapter, rs in by_chapter.items():
        total = sum(len(r.mutants) for r in rs)
        equivalent = sum(len(r.survivors) - len(r.unexplained) for r in rs)
        killed = total - sum(len(r.survivors) for r in rs)
        score = killed / max(total - equivalent, 1)
        row = (len(rs), total, equivalent, killed, f"{score:.0%}")
        lines.append(f"{chapter:<22} " + " ".join(f"{x:>10}" for x in row))
    return "\n".join(lines)


if __name__ == "__main__":
    results = run(set(sys.argv[1:]) or None)
    print(table(results))
    for r in results:
        for m in r.unexplained:
            print(f"SURVIVES {r.solution.exercise.id}: {m.description}")
