"""The prose quotes names, never computations: every ``{eval}`` of the book is a name, an
indexed or dotted name, or one formatting call of such names (``dec(w)``, ``vector(o)``,
``figures.ref("fig-x")``). A computation such as ``dec(a / b)`` gets a named value in a
visible cell instead, where the reader sees it computed.
"""

import ast
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
EVAL = re.compile(r"\{eval\}`([^`]+)`")
# figures.ref and stored_ref name a figure ("Figure 4.1"), here or as another chapter stores it
FORMATTERS = {"dec", "plain", "vector", "sci", "grouped", "percent", "figures.ref", "stored_ref"}


def _index(node):
    """A subscript's index: constants (also negative), names, tuples and slices of them."""
    if isinstance(node, ast.Constant | ast.Name):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple):
        return all(_index(e) for e in node.elts)
    if isinstance(node, ast.Slice):
        return all(p is None or _index(p) for p in (node.lower, node.upper, node.step))
    return False


def _name(node):
    """``x``, ``x.attr``, ``x[0]``, ``x.attr[1, -1]``: a value, not a computation."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _name(node.value)
    if isinstance(node, ast.Subscript):
        return _name(node.value) and _index(node.slice)
    return False


def quotes_a_name(expression):
    """True if ``expression`` is a name, or one formatting call of names and constants."""
    try:
        node = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError:
        return False
    if _name(node):
        return True
    if not (isinstance(node, ast.Call) and ast.unparse(node.func) in FORMATTERS):
        return False
    arguments = [*node.args, *(k.value for k in node.keywords)]
    return all(_name(a) or isinstance(a, ast.Constant) for a in arguments)


def evals():
    for path in sorted(BOOK.glob("*.py")) + sorted(BOOK.glob("*.md")):
        for expression in EVAL.findall(path.read_text(encoding="utf-8")):
            yield path.name, expression


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("w", True),
        ("run.losses[-1]", True),
        ("weights_learned[1, 0]", True),
        ("dec(loss, 4)", True),
        ('figures.ref("fig-ch8-learning")', True),
        ('stored_ref("08_learning", "fig-ch8-learning")', True),
        ("dec(a / b)", False),
        ("dec((step_flops[0] + step_flops[5]) / 2)", False),
        ("len(tokens)", False),
        ("math.log(16)", False),
        ("w[i + 1]", False),
        ("dec(w.sum())", False),
    ],
)
def test_the_rule_tells_a_name_from_a_computation(expression, expected):
    assert quotes_a_name(expression) is expected


def test_every_eval_of_the_book_quotes_a_name():
    found = list(evals())
    assert len(found) > 500  # the book's prose quotes its numbers this way
    computing = [f"{chapter}: {{eval}}`{e}`" for chapter, e in found if not quotes_a_name(e)]
    assert computing == [], "give these values a name in a visible cell:\n" + "\n".join(computing)


def test_no_eval_shows_a_numpy_repr():
    """A bare numpy scalar renders as ``np.int64(1000)`` in the prose (a referee saw it on the
    site): every stored {eval} result is a plain value, through a formatter or a Python type."""
    import json

    shown = [
        f"{nb.parent.name}/{nb.name}: {e['expression']} -> {text}"
        for nb in sorted(BOOK.glob("**/[0-9][0-9]_*.ipynb"))
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for e in cell.get("metadata", {}).get("user_expressions", [])
        for text in [e.get("result", {}).get("data", {}).get("text/plain", "")]
        if re.search(r"\bnp\.\w+\(", text)
    ]
    assert shown == []
