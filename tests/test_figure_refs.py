"""attn_book.figures.stored_ref reads a figure's number from a chapter's stored caption, and the
figure gallery's links name the numbers the chapters' notebooks hold now."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attn_book.figures import stored_ref

BOOK = Path(__file__).resolve().parent.parent / "book"


def _notebook(tmp_path, cells):
    (tmp_path / "07_demo.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")


def _code(source, caption=None):
    outputs = [{"output_type": "display_data", "data": {"text/plain": "<figure>"}}]
    if caption:
        outputs.append({"output_type": "display_data", "data": {"text/markdown": caption}})
    return {"cell_type": "code", "source": source, "outputs": outputs}


def test_the_number_is_the_stored_captions(tmp_path, monkeypatch):
    _notebook(
        tmp_path,
        [
            {"cell_type": "markdown", "source": 'the prose names "fig-b" first', "outputs": []},
            _code('figures.show(a, "fig-a", "A.")', "**Figure 7.2.** A."),
            _code('figures.show(b, "fig-b", "B.")', "**Figure 7.1.** B."),
        ],
    )
    monkeypatch.chdir(tmp_path)
    assert stored_ref("07_demo", "fig-a") == "Figure 7.2"
    assert stored_ref("07_demo", "fig-b") == "Figure 7.1"


def test_a_missing_figure_or_notebook_is_named(tmp_path, monkeypatch):
    _notebook(tmp_path, [_code('figures.show(a, "fig-a", "A.")')])  # not run: no caption
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="name='fig-a'"):
        stored_ref("07_demo", "fig-a")
    with pytest.raises(FileNotFoundError, match="notebook='08_other'"):
        stored_ref("08_other", "fig-a")


def test_the_gallery_quotes_the_numbers_the_chapters_store(monkeypatch):
    monkeypatch.chdir(BOOK)
    gallery = json.loads((BOOK / "99_figure_gallery.ipynb").read_text(encoding="utf-8"))
    quoted = [
        (e["expression"], e["result"]["data"]["text/plain"])
        for cell in gallery["cells"]
        for e in cell.get("metadata", {}).get("user_expressions", [])
        if e["expression"].startswith("stored_ref(")
    ]
    assert len(quoted) >= 8
    for expression, stored in quoted:
        notebook, name = re.findall(r'"([^"]+)"', expression)
        assert stored == repr(stored_ref(notebook, name)), expression
