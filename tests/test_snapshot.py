"""Static snapshots of the interactive figures: keyed by state, stored, drawn by the figure's JS.

The PNG a notebook shows before it runs is the figure's own bundle rendered in headless
Chromium (attn_book/widgets/snapshot.py), captured by tools/sync_chapters.py and stored in
attn_book/widgets/snapshots/. These tests hold the notebooks, the stored files and the keys
together; the capture tests need Chromium and skip without it (fail with
ATTN_REQUIRE_BROWSER=1); tests/browser/test_snapshots_browser.py compares a stored snapshot
with the live figure on the built site.
"""

from __future__ import annotations

import base64
import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("anywidget")

from attn_book.widgets import (
    AttentionHeatmap,
    MemoryCalculator,
    QueryPad,
    ScalingExplorer,
    SoftmaxBars,
    WindowSinks,
    snapshot,
)
from attn_book.widgets._base import SNAPSHOT_METADATA

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def as_stored(widget):
    """``widget``'s state as a notebook stores it: through JSON, with another layout id."""
    state = json.loads(json.dumps(widget.get_state()))
    return {**state, "layout": "IPY_MODEL_0123456789abcdef"}


def figure_outputs(notebook):
    """(output, model id, stored state) of every figure shown in ``notebook`` (a dict)."""
    states = notebook["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view:
                yield output, view["model_id"], states[view["model_id"]]["state"]


# ---------------------------------------------------------------- the key


def test_the_key_is_the_same_in_the_kernel_and_in_the_notebook():
    for widget in (QueryPad(), SoftmaxBars(shift=10), AttentionHeatmap(causal=True)):
        assert snapshot.snapshot_key(widget.get_state()) == snapshot.snapshot_key(as_stored(widget))


@pytest.mark.parametrize(
    "change",
    [
        {"query": [0.0, 1.0]},  # an input
        {"show": ["weights"]},  # what is shown
        {"_esm": "export default { render() {} }"},  # the figure's code
        {"_css": ".abh-fig { color: red }"},  # its style
        {"_anywidget_id": "attn_book.widgets.other.QueryPad"},  # another class
    ],
)
def test_the_key_changes_with_the_state_and_the_code(change):
    state = as_stored(QueryPad())
    assert snapshot.snapshot_key({**state, **change}) != snapshot.snapshot_key(state)


def test_the_key_ignores_last_bit_differences_of_the_numbers():
    state = as_stored(SoftmaxBars())
    nudged = {**state, "weights": [np.nextafter(w, 1.0) for w in state["weights"]]}
    assert nudged["weights"] != state["weights"]
    assert snapshot.snapshot_key(nudged) == snapshot.snapshot_key(state)
    moved = {**state, "weights": [w + 1e-6 for w in state["weights"]]}
    assert snapshot.snapshot_key(moved) != snapshot.snapshot_key(state)


def test_the_key_takes_whole_floats_as_a_notebook_saved_by_jupyterlab_writes_them():
    state = as_stored(SoftmaxBars(scores=(2.0, 1.0, 0.1)))
    as_lab_saves = {**state, "scores": [2, 1, 0.1], "shift": 0, "temperature": 1}
    assert snapshot.snapshot_key(as_lab_saves) == snapshot.snapshot_key(state)
    assert snapshot.snapshot_key({**state, "scaled": 1}) != snapshot.snapshot_key(
        {**state, "scaled": True}
    )


def test_the_key_ignores_the_font_and_the_bookkeeping():
    state = as_stored(QueryPad())
    other_font = state["_css"].replace("base64,", "base64,AAAA")  # a new subset, same rules
    assert other_font != state["_css"]
    same = {**state, "_css": other_font, "layout": "IPY_MODEL_x", "_view_count": 3}
    assert snapshot.snapshot_key(same) == snapshot.snapshot_key(state)


def test_the_repr_names_the_key_and_shows_a_stored_png(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "SNAPSHOTS", tmp_path)
    pad = QueryPad(query=(0.25, 0.5))
    data, metadata = pad._repr_mimebundle_()
    key = metadata[SNAPSHOT_METADATA]
    assert key == snapshot.snapshot_key(pad.get_state())
    assert "image/png" not in data, "no PNG is stored for this state yet"
    (tmp_path / f"{key}.png").write_bytes(PNG_SIGNATURE + b"stored")
    data, _ = pad._repr_mimebundle_()
    assert base64.b64decode(data["image/png"]) == PNG_SIGNATURE + b"stored"
    assert WIDGET_VIEW in data and data["text/plain"].startswith("QueryPad(")


def test_the_kernel_never_draws():
    code = (
        "import sys; from attn_book.widgets import QueryPad; QueryPad()._repr_mimebundle_(); "
        "print(sorted(m for m in ('matplotlib', 'playwright', 'PIL') if m in sys.modules))"
    )
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- the stored snapshots


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_in_the_notebooks_shows_its_stored_snapshot(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for output, _, state in figure_outputs(notebook):
        name = f"{path.name}: {output['data']['text/plain']}"
        key = output["metadata"].get(SNAPSHOT_METADATA)
        assert key == snapshot.snapshot_key(state), f"{name}: snapshot key of another state"
        stored = snapshot.stored_png(key)
        assert stored is not None, f"{name}: snapshots/{key}.png is missing (sync the chapter)"
        assert base64.b64decode(output["data"].get("image/png", "")) == stored, name


def test_no_stored_snapshot_is_unused():
    korean = sorted((ROOT / "book" / "ko").glob("[0-9][0-9]_*.ipynb"))  # their own snapshots
    used = {
        output["metadata"].get(SNAPSHOT_METADATA)
        for path in [*NOTEBOOKS, *korean]
        for output, _, _ in figure_outputs(json.loads(path.read_text(encoding="utf-8")))
    }
    stored = {p.stem for p in snapshot.SNAPSHOTS.glob("*.png")}
    assert stored <= used, f"unused snapshots: {sorted(stored - used)}"


def test_stored_snapshots_are_small_pngs_of_the_text_column():
    from PIL import Image

    for path in sorted(snapshot.SNAPSHOTS.glob("*.png")):
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) < 60_000, path.name
        for chunk in (b"tEXt", b"iTXt", b"zTXt", b"tIME"):
            assert chunk not in data, f"{path.name} carries {chunk} metadata"
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
        assert width == snapshot.WIDTH + 12 and 100 <= height <= 1400, (path.name, image.size)


# ---------------------------------------------------------------- the sync tool


def _sync_tool():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import sync_chapters
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return sync_chapters


def _shown(widget):
    import nbformat

    data, metadata = widget._repr_mimebundle_()
    output = nbformat.v4.new_output("display_data", data=data, metadata=metadata)
    caption = nbformat.v4.new_output("display_data", data={"text/markdown": "**Figure 9.3.** A"})
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(outputs=[output, caption])]
    )
    return notebook, [(0, output, as_stored(widget))]


def test_without_chromium_a_changed_figure_is_named_and_keeps_no_stale_png(
    tmp_path, monkeypatch, capsys
):
    sync = _sync_tool()
    monkeypatch.setattr(snapshot, "SNAPSHOTS", tmp_path)
    monkeypatch.setattr(snapshot, "can_capture", lambda: "no Chromium at /nowhere")
    notebook, shown = _shown(SoftmaxBars(scores=(3.0, 1.0)))
    shown[0][1].data["image/png"] = "c3RhbGU="  # a PNG of an earlier state
    sync.store_snapshots("09_x.py", notebook, shown)
    err = capsys.readouterr().err
    assert "warning: 09_x.py: Figure 9.3, SoftmaxBars(scores=(3, 1)" in err
    assert "no Chromium at /nowhere" in err
    assert "image/png" not in shown[0][1].data


def test_without_chromium_an_unchanged_figure_keeps_its_snapshot(tmp_path, monkeypatch, capsys):
    sync = _sync_tool()
    monkeypatch.setattr(snapshot, "SNAPSHOTS", tmp_path)
    monkeypatch.setattr(snapshot, "can_capture", lambda: "no Chromium at /nowhere")
    widget = SoftmaxBars(scores=(3.0, 1.0))
    key = snapshot.snapshot_key(widget.get_state())
    (tmp_path / f"{key}.png").write_bytes(PNG_SIGNATURE + b"kept")
    notebook, shown = _shown(widget)
    sync.store_snapshots("09_x.py", notebook, shown)
    assert capsys.readouterr().err == ""
    assert base64.b64decode(shown[0][1].data["image/png"]) == PNG_SIGNATURE + b"kept"
    assert shown[0][1].metadata[SNAPSHOT_METADATA] == key


# ---------------------------------------------------------------- capturing (Chromium)


def test_without_chromium_capture_says_why(monkeypatch):
    monkeypatch.setattr(snapshot, "CHROMIUM", "/nowhere/chromium")
    assert "no Chromium at /nowhere/chromium" in snapshot.can_capture()
    with pytest.raises(RuntimeError, match="cannot capture figure snapshots: no Chromium"):
        snapshot.capture([as_stored(QueryPad())])


@pytest.fixture(scope="module")
def chromium():
    if (reason := snapshot.can_capture()) is not None:
        if os.environ.get("ATTN_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{reason} (ATTN_REQUIRE_BROWSER=1)")
        pytest.skip(reason)


def pixels(png):
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=int)


def test_capture_is_deterministic_and_follows_the_state(chromium):
    states = [as_stored(QueryPad()), as_stored(QueryPad()), as_stored(QueryPad(query=(0, 1)))]
    first, again, moved = snapshot.capture(states)
    assert first == again, "the same state must give the same bytes"
    assert first != moved


def test_captured_heatmap_draws_its_cells_in_viridis_and_hides_masked_ones(chromium):
    # The JS colours a weight-0 cell viridis(0) = rgb(68, 1, 84) and a masked one #e8e8e8.
    open_, causal = snapshot.capture(
        [as_stored(AttentionHeatmap()), as_stored(AttentionHeatmap(causal=True))]
    )
    grey = [(pixels(png) == (0xE8, 0xE8, 0xE8)).all(axis=-1).sum() for png in (open_, causal)]
    assert grey[1] > 2000 > grey[0], grey


def test_captured_query_pad_draws_each_key_in_its_okabe_ito_colour(chromium):
    from attn_book.style import OKABE_ITO

    (png,) = snapshot.capture([as_stored(QueryPad())])
    colours = {tuple(c) for c in pixels(png).reshape(-1, 3)}
    keys = {tuple(int(h[i : i + 2], 16) for i in (1, 3, 5)) for h in OKABE_ITO[:3]}
    assert keys <= colours


def test_hangul_outside_the_figures_font_is_refused_not_drawn_as_boxes(chromium):
    rare = "뷁"  # a syllable no figure uses, so not in hangul_font.css
    css = (ROOT / "attn_book" / "widgets" / "hangul_font.css").read_text(encoding="utf-8")
    assert rare not in css.split("covers: ")[1].split(" */")[0]
    with pytest.raises(
        RuntimeError, match=r"Hangul drawn without the figures' font \(the subset lacks 뷁\)"
    ):
        snapshot.capture([as_stored(AttentionHeatmap(query_tokens=["나는", rare]))])


def test_hangul_the_css_does_not_set_in_the_font_is_refused(chromium):
    state = as_stored(AttentionHeatmap())
    state["_css"] = state["_css"].replace('"ABH Hangul",', "")  # widgets.css forgets the font
    with pytest.raises(RuntimeError, match=r"\(boxes\) in .*나는"):
        snapshot.capture([state])


def test_every_kind_of_figure_captures(chromium):
    kinds = [MemoryCalculator(), ScalingExplorer(d_k=8), SoftmaxBars(), QueryPad(show=())]
    kinds.append(WindowSinks(sink=True, gate=True, step=2, window=4))
    for png in snapshot.capture([as_stored(w) for w in kinds]):
        assert png.startswith(PNG_SIGNATURE) and pixels(png).std() > 10  # not blank


# --- the figures' words in another language -------------------------------------------------

KO_WORDS = {"sink": "싱크", "window W": "윈도우 W", "a word no figure draws": "없는 말"}
SINK_WORDS = {"sink": "싱크", "window W": "윈도우 W"}  # those WindowSinks' bundle quotes


@pytest.fixture
def korean_words(monkeypatch):
    """figures.po's Korean as this test sets it, whatever the committed catalog holds."""
    from attn_book import i18n

    real = i18n._catalog
    monkeypatch.setattr(
        i18n,
        "_catalog",
        lambda domain, language: (
            {(None, k): v for k, v in KO_WORDS.items()}
            if (domain, language) == (i18n.FIGURES, "ko")
            else real(domain, language)
        ),
    )
    return KO_WORDS


def test_a_figure_carries_the_words_of_its_drawing_language(korean_words):
    from attn_book import i18n

    assert WindowSinks().get_state()["words"] == {}  # English: the JS's msgids themselves
    with i18n.drawing("ko"):
        korean = WindowSinks()
    assert korean.get_state()["words"] == SINK_WORDS  # its own words, not the whole catalog
    english = WindowSinks()
    assert snapshot.snapshot_key(korean.get_state()) != snapshot.snapshot_key(english.get_state())


def test_the_korean_build_gives_each_figure_the_korean_words_and_its_snapshot(
    korean_words, monkeypatch, tmp_path, capsys
):
    import copy

    import nbformat

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import i18n as tool
    finally:
        sys.path.remove(str(ROOT / "tools"))
    widget = WindowSinks()
    state = json.loads(json.dumps(widget.get_state(), default=list))
    other = {"_model_name": "LayoutModel", "align_content": None}
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["widgets"] = {
        WIDGET_STATE: {"state": {"m1": {"state": state}, "m2": {"state": other}}}
    }
    view = {WIDGET_VIEW: {"model_id": "m1"}, "image/png": "ENGLISH", "text/plain": "WindowSinks"}
    output = nbformat.v4.new_output("display_data", data=view)
    notebook.cells.append(nbformat.v4.new_code_cell("figure", outputs=[output]))
    english = copy.deepcopy(notebook)
    korean_state = {**state, "words": SINK_WORDS}
    key = snapshot.snapshot_key(korean_state)
    monkeypatch.setattr(snapshot, "SNAPSHOTS", tmp_path)
    (tmp_path / f"{key}.png").write_bytes(PNG_SIGNATURE + b"korean")
    tool.translate_widgets(notebook, "ko", "11_test")
    stored = notebook.metadata["widgets"][WIDGET_STATE]["state"]
    assert stored["m1"]["state"]["words"] == SINK_WORDS
    assert stored["m2"]["state"] == other  # not a figure of this book: untouched
    shown = notebook.cells[0].outputs[0]
    assert shown.metadata[SNAPSHOT_METADATA] == key
    assert base64.b64decode(shown.data["image/png"]) == PNG_SIGNATURE + b"korean"
    # No stored snapshot and no Chromium: the figure shows its text, and the build says so.
    monkeypatch.setattr(snapshot, "can_capture", lambda: "no Chromium here")
    (tmp_path / f"{key}.png").unlink()
    tool.translate_widgets(english, "ko", "11_test", capture=True)
    assert "image/png" not in english.cells[0].outputs[0].data
    said = capsys.readouterr().err
    assert "WindowSinks has no snapshot" in said and "no Chromium here" in said


# --- a Korean figure's lines break between words, as on the site -------------------------

#: softmax_bars's note, as the Korean snapshot drew it broken mid-word ("하나 / 에",
#: "오 / 버플로하고") before its page had the site's rule for Korean.
KOREAN_NOTE = "모든 점수 하나에 더할 이동값을 ~710 너머로 밀면 단순 exp(s)는 ∞로 오버플로하고"


def test_a_korean_figure_is_drawn_in_a_korean_page_an_english_one_as_before():
    english = as_stored(SoftmaxBars())
    korean = {**english, "words": {"shift every score by": "모든 점수에 더할 이동값"}}
    assert snapshot._lang(english) == "en" and snapshot._lang(korean) == "ko"
    assert '<html lang="ko">' in snapshot._page(korean, 680)
    assert "word-break: keep-all" in snapshot._page(korean, 680)
    assert '<html lang="en">' in snapshot._page(english, 680)
    # the page's Korean rule is part of a Korean picture's key (its snapshot is drawn anew),
    # not of an English one's (English snapshots keep their keys)
    before = (snapshot.snapshot_key(english), snapshot.snapshot_key(korean))
    snapshot._LANG_STYLE, kept = "", snapshot._LANG_STYLE
    try:
        after = (snapshot.snapshot_key(english), snapshot.snapshot_key(korean))
    finally:
        snapshot._LANG_STYLE = kept
    assert before[0] == after[0] and before[1] != after[1]


WORD_LINES = """async ([text, width, css]) => {
  const style = document.createElement("style");
  style.textContent = css;  // the figures' CSS, with their Hangul font
  document.head.appendChild(style);
  const box = document.createElement("div");
  box.className = "abh-fig";
  box.style.width = `${width}px`;
  box.style.fontSize = "14px";
  box.textContent = text;
  document.getElementById("host").appendChild(box);
  for (const face of document.fonts) await face.load();
  await document.fonts.ready;
  const node = box.firstChild, out = [];
  let at = 0;
  for (const word of text.split(" ")) {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    out.push([word, tops.size]);
    at += word.length + 1;
  }
  return out;
}"""


def test_a_korean_snapshot_breaks_lines_only_between_words(chromium):
    from playwright.sync_api import sync_playwright

    korean = {**as_stored(SoftmaxBars()), "words": {"shift every score by": "이동값"}}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=snapshot.CHROMIUM, headless=True)
        try:
            page = browser.new_page()
            page.set_content(snapshot._page(korean, 680))
            lines = page.evaluate(WORD_LINES, [KOREAN_NOTE, 150, korean["_css"]])
        finally:
            browser.close()
    assert max(n for _, n in lines) == 1, [w for w, n in lines if n > 1]
    assert len(lines) == len(KOREAN_NOTE.split(" "))
    assert sum(n for _, n in lines) > 3  # (it did wrap, over several lines)
