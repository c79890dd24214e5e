"""Static PNG snapshots of the interactive figures (attn_book.widgets.snapshot)."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import warnings

import pytest

from attn_book.widgets import AttentionHeatmap, QueryPad, ScalingExplorer, SoftmaxBars, snapshot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_BYTES = 60_000
MASKED_GREY = (0xE8, 0xE8, 0xE8)  # the heatmap's masked cell colour, as the JS draws it

CASES = {
    "query_pad": (snapshot.query_pad_png, QueryPad, {"query": (-0.6, 1.4), "temperature": 0.5}),
    "softmax_bars": (
        snapshot.softmax_bars_png,
        SoftmaxBars,
        {"scores": (1, 0, 1, 3), "shift": 1e3},
    ),
    "scaling": (snapshot.scaling_explorer_png, ScalingExplorer, {"d_k": 1024}),
    "heatmap": (snapshot.heatmap_png, AttentionHeatmap, {"causal": True, "selected": 2, "head": 1}),
}


def png_size(data):
    """(width, height) read from the IHDR chunk, after checking the PNG signature."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR"), "the first chunk of a PNG must be IHDR"
    return struct.unpack(">II", data[16:24])


def colours(data):
    """The set of RGB colours in a PNG."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return {c for _, c in image.convert("RGB").getcolors(maxcolors=1 << 16)}


@pytest.mark.parametrize("name", CASES)
def test_default_and_changed_state_give_valid_small_deterministic_pngs(name):
    draw, kind, changes = CASES[name]
    default, changed = kind(), kind(**changes)
    pngs = [draw(default), draw(changed)]
    for png in pngs:
        width, height = png_size(png)
        assert width == 680  # the text column at 100 dpi
        assert 200 <= height <= 520
        assert len(png) <= MAX_BYTES
    assert pngs[0] != pngs[1], "the snapshot must follow the widget's state"
    assert draw(changed) == pngs[1], "a re-run must give the same bytes"


def test_snapshot_follows_a_trait_set_after_construction():
    pad = QueryPad()
    before = snapshot.query_pad_png(pad)
    pad.query = (0.0, 1.0)
    assert snapshot.query_pad_png(pad) != before
    assert snapshot.query_pad_png(QueryPad(query=(0.0, 1.0))) == snapshot.query_pad_png(pad)


def test_png_carries_no_software_or_time_metadata():
    png = snapshot.softmax_bars_png(SoftmaxBars())
    for chunk in (b"tEXt", b"iTXt", b"zTXt", b"tIME"):
        assert chunk not in png


def test_causal_heatmap_shows_masked_cells_in_grey():
    # Three masked cells of a 3 x 3 heatmap fill thousands of pixels with the grey; without
    # the mask the grey is at most a few anti-aliased pixels of text.
    masked = grey_pixels(snapshot.heatmap_png(AttentionHeatmap(causal=True)))
    unmasked = grey_pixels(snapshot.heatmap_png(AttentionHeatmap(causal=False)))
    assert masked > 2000 and unmasked < 200, (masked, unmasked)


def grey_pixels(data):
    """How many pixels of a PNG are exactly the masked cells' grey."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        counts = {c: n for n, c in image.convert("RGB").getcolors(maxcolors=1 << 16)}
    return counts.get(MASKED_GREY, 0)


def test_query_pad_draws_each_key_in_its_okabe_ito_colour():
    okabe_ito = {(0xE6, 0x9F, 0x00), (0x56, 0xB4, 0xE9), (0x00, 0x9E, 0x73)}  # k1, k2, k3
    assert okabe_ito <= colours(snapshot.query_pad_png(QueryPad()))


@pytest.mark.parametrize("name", CASES)
def test_dispatcher_picks_the_figure_function(name):
    draw, kind, _ = CASES[name]
    widget = kind()
    assert snapshot.snapshot_png(widget) == draw(widget)


@pytest.mark.parametrize("other", [object(), None, "QueryPad", {"query": [1, 0]}])
def test_dispatcher_returns_none_for_anything_else(other):
    assert snapshot.snapshot_png(other) is None


def test_romanise_spells_each_syllable():
    # by hand: 나 n+a, 는 n+eu+n; 사 s+a, 과 g+wa, 를 r+eu+l; 먹 m+eo+k, 었 eo+t (ㅆ final), 다 d+a
    assert snapshot.romanise("나는 사과를 먹었다") == "naneun sagwareul meokeotda"
    assert snapshot.romanise("한국어") == "hangukeo"
    assert snapshot.romanise("q·k = 0.401") == "q·k = 0.401"


def test_korean_tokens_draw_without_missing_glyphs():
    if snapshot.hangul_font() is None:
        pytest.skip("no font with Hangul here: the snapshots romanise Korean tokens")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        snapshot.heatmap_png(AttentionHeatmap())


def test_without_a_hangul_font_tokens_are_romanised(monkeypatch):
    monkeypatch.setattr(snapshot, "hangul_font", lambda: None)
    assert snapshot._token("사과를") == "sagwareul"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        png = snapshot.heatmap_png(AttentionHeatmap())
    assert png_size(png)[0] == 680


def test_importing_the_module_does_not_import_matplotlib():
    code = "import sys, attn_book.widgets.snapshot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_chapter_one_pad_shows_no_values_and_no_output():
    # show=() (chapter 1) draws q, the keys and the dot products, not the output o.
    full, first = QueryPad(), QueryPad(show=())
    assert snapshot.query_pad_png(first) != snapshot.query_pad_png(full)
    assert "o = " not in _title_text(first) and "o = " in _title_text(full)


def _title_text(pad):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.subplots()
    snapshot._draw_plane(ax, pad)
    return ax.get_title()
