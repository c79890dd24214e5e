"""Run a figure's own helpers in node: its module exports only ``render``, so a test copies the
widgets' src/ to a folder, exports the helpers it needs, and runs a small ES module beside them
(test_heatmap_training, test_head_weights, test_widget_js)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import attn_book

SRC = Path(attn_book.__file__).parent / "widgets" / "src"
NODE = shutil.which("node") or "/usr/bin/node"


def run_figure_js(folder, figure, helpers, runner, *, args=(), stdin=None):
    """Run ``runner`` (ES module text) in ``folder`` beside src/, where ``figure``.js also
    exports ``helpers``; pass ``args`` on its command line and ``stdin`` (JSON-able) on its
    standard input; return what it prints, parsed as JSON. Skipped without node."""
    if not Path(NODE).exists():
        pytest.skip(f"node not found ({NODE}); the JS tests need Node.js")
    folder = Path(folder)
    for src in SRC.glob("*.js"):
        shutil.copy(src, folder / src.name)
    module = folder / f"{figure}.js"
    exports = f"\nexport {{ {', '.join(helpers)} }};\n"
    module.write_text(module.read_text(encoding="utf-8") + exports, encoding="utf-8")
    (folder / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    (folder / "run.mjs").write_text(runner, encoding="utf-8")
    proc = subprocess.run(
        [NODE, "run.mjs", *args], input=None if stdin is None else json.dumps(stdin),
        capture_output=True, text=True, cwd=folder, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(proc.stdout)
