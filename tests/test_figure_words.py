"""Tables and plots speak the drawing language (issue #41): a table's headings and row labels
and a plot's words go through attn_book.i18n.word; the outputs record what the Korean notebook
needs to be drawn again without running the chapter (attn_table, attn_translations)."""

from __future__ import annotations

import base64
import copy
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from attn_book import figures as figs
from attn_book import i18n, plots
from attn_book.tables import step_table, translate_output

ROOT = Path(__file__).resolve().parent.parent
KOREAN = {
    "score": "점수",
    "weight": "가중치",
    "sum": "합계",
    "key": "키",
    "query": "쿼리",
    "the cat": "고양이",
    "fit, slope {slope}": "적합, 기울기 {slope}",
}


@pytest.fixture
def catalog(monkeypatch):
    """A tiny Korean figures catalog in place of the real one."""

    def fake(domain, language):
        if domain == i18n.FIGURES and language == "ko":
            return {(None, en): ko for en, ko in KOREAN.items()}
        return {}

    monkeypatch.setattr(i18n, "_catalog", fake)


def table():
    return step_table(
        {"score": [1.0, 0.5], "weight": [0.62, 0.38]},
        index=["the cat", "k2"],
        footer=("sum", {"weight": 1.0}),
    )


ENGLISH_MD = (
    "|  | score | weight |\n|---|---:|---:|\n| the cat | 1.000 | 0.620 |\n"
    "| k2 | 0.500 | 0.380 |\n| sum |  | 1.000 |"
)


def test_english_table_renders_as_before(catalog):
    t = table()
    assert repr(t) == t._repr_markdown_() == ENGLISH_MD
    head = '<th style="padding:0.15em 0.9em;text-align:center">score</th>'
    assert head in t._repr_html_() and "합계" not in t._repr_html_()
    data, metadata = t._repr_mimebundle_()
    assert data == {
        "text/plain": ENGLISH_MD,
        "text/html": t._repr_html_(),
        "text/markdown": ENGLISH_MD,
    }
    assert metadata == {
        "attn_table": {
            "header": ["", "score", "weight"],
            "rows": [["the cat", "1.000", "0.620"], ["k2", "0.500", "0.380"], ["sum", "", "1.000"]],
            "labelled": True,
        },
        "attn_words": ["score", "weight", "the cat", "sum"],
    }


def test_korean_table_translates_words_not_numbers(catalog):
    with i18n.drawing("ko"):
        text = repr(table())
        html = table()._repr_html_()
    assert text == ENGLISH_MD.replace("score", "점수").replace("weight", "가중치").replace(
        "the cat", "고양이"
    ).replace("sum", "합계")
    assert ">k2<" in html and ">가중치<" in html and ">0.620<" in html


def test_a_cell_with_words_is_translated_too_a_number_never(catalog):
    """A table whose cells describe (chapter 11's configuration fields) speaks Korean too."""
    unlabelled = step_table({"score": ["sum", "weight", "0.500"]})
    assert unlabelled.labelled is False
    assert unlabelled.words() == ["score", "sum", "weight"]
    with i18n.drawing("ko"):
        assert unlabelled.drawn() == (("점수",), (("합계",), ("가중치",), ("0.500",)))


def test_translate_output_is_what_a_korean_kernel_displays(catalog):
    data, metadata = table()._repr_mimebundle_()
    output = {"output_type": "execute_result", "data": dict(data), "metadata": metadata}
    translated = translate_output(copy.deepcopy(output), "ko")
    with i18n.drawing("ko"):
        korean_data, korean_metadata = table()._repr_mimebundle_()
    assert translated["data"] == korean_data
    assert translated["metadata"] == korean_metadata == metadata  # the English, recorded
    assert translate_output(copy.deepcopy(output), "en") == output


def test_tools_register_the_translators():
    sys.path.insert(0, str(ROOT / "tools"))
    import i18n as tool

    assert tool.OUTPUT_TRANSLATORS["attn_table"] is translate_output
    assert tool.OUTPUT_TRANSLATORS["attn_translations"] is figs.translate_png


def heatmap():
    panel = {"matrix": [[0.2, 0.8]], "title": "weight", "rows": ["q1"], "cols": ["k1", "k2"]}
    return plots.plot_heatmaps([panel], xlabel="key", ylabel="query")


def test_plot_draws_passed_and_own_words_in_korean(catalog):
    english = heatmap()
    with i18n.drawing("ko"):
        korean = heatmap()
    ax, bar = korean.axes
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("키", "쿼리", "가중치")
    assert bar.get_ylabel() == "가중치"  # the colour bar's default label
    assert [t.get_text() for t in ax.get_xticklabels()] == ["k1", "k2"]  # tokens stay
    assert english.axes[0].get_xlabel() == "key"
    assert english._attn_words == korean._attn_words == ["key", "weight", "query"]
    plt.close("all")


def test_a_template_keeps_its_computed_part(catalog):
    with i18n.drawing("ko"):
        fig = plots.plot_cost_scaling(
            [64, 128, 256],
            [1e-3, 4e-3, 1.6e-2],
            [1e4, 4e4, 1.6e5],
            slope=2.0,
            model_bytes=[1, 2, 3],
        )
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "적합, 기울기 2.00" in legend
    assert "fit, slope {slope}" in fig._attn_words
    plt.close("all")


def test_token_heatmaps_record_once(catalog):
    panel = {"matrix": [[1.0]], "title": "weight", "rows": ["고양이"], "cols": ["cat"]}
    fig = plots.plot_token_heatmaps([panel], xlabel="key", ylabel="query")
    assert fig._attn_redraw.func is plots.plot_token_heatmaps
    assert fig._attn_words == ["key", "weight", "query"]
    plt.close("all")


@pytest.fixture
def shown(monkeypatch):
    import IPython.display

    calls = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: calls.append((obj, kw)))
    return calls


def test_show_records_the_korean_copy_in_an_english_kernel(catalog, shown):
    fig = heatmap()
    figs.Figures(chapter=7, language="en").show(fig, "fig-x", "A heatmap.")
    (shown_fig, kw), (_, caption_kw) = shown
    assert shown_fig is fig
    metadata = kw["metadata"]
    assert metadata["attn_words"] == ["key", "weight", "query"]
    korean = base64.b64decode(metadata["attn_translations"]["ko"])
    assert korean.startswith(b"\x89PNG")
    assert "attn_figure" in caption_kw["metadata"]
    english = figs.png(heatmap())
    assert metadata["attn_translations"]["ko"] != english
    output = {"data": {"image/png": english}, "metadata": copy.deepcopy(metadata)}
    figs.translate_png(output, "ko")
    assert output == {
        "data": {"image/png": metadata["attn_translations"]["ko"]},
        "metadata": {"attn_words": ["key", "weight", "query"]},
    }
    plt.close("all")


def test_show_records_no_copy_in_a_korean_kernel(catalog, shown):
    with i18n.drawing("ko"):
        fig = heatmap()
        figs.Figures(chapter=7, language="ko").show(fig, "fig-x", "A heatmap.")
    assert shown[0][1]["metadata"] == {"attn_words": ["key", "weight", "query"]}


def test_show_of_another_figure_records_nothing(shown):
    fig, _ = plt.subplots()
    figs.Figures(chapter=7, language="en").show(fig, "fig-x", "A figure.")
    assert shown[0][1] == {"metadata": None}
