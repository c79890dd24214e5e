"""Importing attn_core is cheap, and the public API is what it says it is."""

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest

import attn_core

HEAVY = ("matplotlib", "ipywidgets", "anywidget", "IPython")

PROBE = f"""
import json, sys, time
start = time.perf_counter()
import attn_core
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


def test_import_loads_numpy_only_and_is_quick(tmp_path):
    # A fresh interpreter outside the repository: only the installed package counts.
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    print(f"\nimport attn_core took {result['seconds'] * 1000:.0f} ms (numpy included)")
    assert result["loaded"] == [], f"import attn_core pulled in {result['loaded']}"


def test_every_public_name_exists():
    missing = [name for name in attn_core.__all__ if not hasattr(attn_core, name)]
    assert not missing
    assert len(set(attn_core.__all__)) == len(attn_core.__all__)


@pytest.mark.parametrize(
    "name", [n for n in attn_core.__all__ if callable(getattr(attn_core, n, None))]
)
def test_public_callables_have_numpydoc_examples(name):
    doc = inspect.getdoc(getattr(attn_core, name)) or ""
    assert "Examples\n--------" in doc, f"attn_core.{name} has no doctest Examples section"
    assert ">>> " in doc


def test_runtime_warnings_from_attn_core_are_errors(pytestconfig):
    # pyproject.toml's filterwarnings turns a RuntimeWarning raised inside attn_core into an
    # error, so the "no warning" promises are checked by every test. Show that it is active:
    assert "error::RuntimeWarning:attn_core.*" in pytestconfig.getini("filterwarnings")
    code = compile("np.log(np.zeros(1))", "attn_core/_probe.py", "exec")
    with pytest.raises(RuntimeWarning, match="divide by zero"):
        exec(code, {"np": np, "__name__": "attn_core._probe"})  # a frame inside attn_core
    with pytest.warns(RuntimeWarning):  # ... and only there: elsewhere it stays a warning
        exec(code, {"np": np, "__name__": "somewhere_else"})


def test_attn_core_imports_nothing_from_the_book_package():
    # The layers: attn_book (plots, widgets, exercises, tables) sits on attn_core, never
    # the other way round. Read every module's imports, so a lazy import inside a
    # function counts too.
    import ast
    from pathlib import Path

    root = Path(attn_core.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            top = {name.split(".")[0] for name in names}
            allowed = {"numpy", "attn_core", "__future__"} | set(sys.stdlib_module_names)
            offenders += [f"{path.name}: {name}" for name in top - allowed]
    assert offenders == [], f"attn_core imports beyond numpy and the standard library: {offenders}"
