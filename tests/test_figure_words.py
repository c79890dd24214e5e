"""Tables and plots speak the drawing language (issue #41): a table's headings and row labels
and a plot's words go through attn_book.i18n.word; the outputs record what the Korean notebook
needs to be drawn again without running the chapter (attn_table, attn_translations)."""

from __future__ import annotations

import base64
import copy
import re
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


def described():
    """Chapter 11's configuration table in small: a field, a description, a term, a number."""
    return step_table(
        {
            "what it is": ["the latent's width d<sub>c</sub>", "a learned sink logit per head"],
            "this chapter": ["MLA", "attention sinks"],
            "size": [512, 1],
        },
        index=["kv_lora_rank", "sinks"],
        index_label="field",
        digits=0,
    )


def test_text_columns_are_left_aligned_numbers_right(catalog):
    """The cold reader's fifth finding: descriptions were right-aligned like numbers."""
    t = described()
    assert t.text_columns() == [True, True, True, False]
    assert t._repr_markdown_().split("\n")[1] == "|---|---|---|---:|"
    html = t._repr_html_()
    left = 'text-align:left">'
    assert f"{left}a learned sink logit per head</td>" in html
    assert f"{left}attention sinks</td>" in html
    assert 'text-align:right">512</td>' in html
    assert f'<th style="padding:0.15em 0.9em;{left}what it is</th>' in html
    # a table of numbers keeps its alignment, its first column left
    assert repr(table()).split("\n")[1] == "|---|---:|---:|"


def test_the_first_column_has_a_heading_in_both_languages(monkeypatch):
    """The fifth finding's empty first heading: ``index_label`` names it, translated."""
    KOREAN_FIELD = {**KOREAN, "field": "설정 필드"}

    def fake(domain, language):
        if domain == i18n.FIGURES and language == "ko":
            return {(None, en): ko for en, ko in KOREAN_FIELD.items()}
        return {}

    monkeypatch.setattr(i18n, "_catalog", fake)
    assert described().header[0] == "field"
    assert repr(described()).startswith("| field | what it is |")
    with i18n.drawing("ko"):
        assert repr(described()).startswith("| 설정 필드 |")
    with pytest.raises(TypeError, match="index_label"):
        step_table({"x": [1]}, index=["a"], index_label=3)


def test_a_subscript_is_html_everything_else_escaped(catalog):
    """The third finding: d_c shown with its underscore; a cell's <sub> stays HTML."""
    html = described()._repr_html_()
    assert "width d<sub>c</sub></td>" in html
    escaped = step_table({"x": ["a <b> & <script>"]})._repr_html_()
    assert "a &lt;b&gt; &amp; &lt;script&gt;" in escaped


def test_hangul_column_labels_are_never_rotated():
    """The ninth finding: chapter 11's heatmap turned its Korean tokens on their side."""
    words = ["나는", "사과를", "먹었다"]
    panel = {"matrix": [[1.0, 0.0, 0.0]], "title": "weight", "rows": ["q"], "cols": words}
    fig = plots.plot_token_heatmaps([panel], xlabel="key", ylabel="query")
    labels = fig.axes[0].get_xticklabels()
    assert [label.get_text() for label in labels] == words
    assert [label.get_rotation() for label in labels] == [0.0, 0.0, 0.0]
    latin = plots.plot_heatmaps([panel | {"cols": ["k1", "k2", "k3"]}])
    assert {label.get_rotation() for label in latin.axes[0].get_xticklabels()} == {90.0}
    plt.close("all")


# --- the cold reader's findings on chapters 4, 9 and 11, against the real catalogs


def korean(english):
    return i18n.word(english, "ko")


def stored_tables(notebook):
    import json

    cells = json.loads((ROOT / "book" / notebook).read_text(encoding="utf-8"))["cells"]
    return [
        o["metadata"]["attn_table"]
        for c in cells
        for o in c.get("outputs", [])
        if "attn_table" in o.get("metadata", {})
    ]


def test_dtype_is_korean_in_the_figures():
    """Finding 1: the calculator's "dtype" menu and its hint are Korean, in the glossary's
    word for dtype (부동소수점 형식, as chapter 9's prose that sends the reader to the menu)."""
    assert korean("dtype") == "부동소수점 형식"
    hint = "Bar: the weights of one layer held at once. Ticks: the same heads, batch and "
    hint += "dtype at 32k and 128k tokens."
    assert "부동소수점 형식" in korean(hint) and "dtype" not in korean(hint)


def test_a_ratio_is_bae_in_korean():
    """Finding 2: "16×" in Korean text; the × belongs to the English sentence, 배 to Korean."""
    template = "{ratio}× the {device}'s"
    assert korean(template) == "{device} 메모리의 {ratio}배"
    assert not any("}×" in text for text in i18n.words("ko").values())


def test_chapter_11_table_has_no_underscores_a_header_and_the_glossary_term():
    """Findings 3, 4, 5: d_c, d_h^R with underscores; "sinks" left in English in the
    chapter's-term column; an empty first heading."""
    (config,) = [
        t for t in stored_tables("11_modern_attention.ipynb") if "this chapter" in t["header"]
    ]
    assert config["header"][0] == "field" and korean("field") == "설정 필드"
    cells = [c for row in config["rows"] for c in row[1:]]
    assert not [c for c in cells if "_" in c], "an index shown with an underscore"
    assert "d<sub>c</sub>" in " ".join(cells) and "d<sub>h</sub><sup>R</sup>" in " ".join(cells)
    terms = [row[2] for row in config["rows"]]
    assert "attention sinks" in terms and korean("attention sinks") == "어텐션 싱크"
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    assert "| attention sink | 어텐션 싱크 |" in glossary
    for cell in cells:
        assert "_" not in korean(cell), cell


def test_chapter_9_steps_name_d_k_with_its_subscript():
    (steps,) = [t for t in stored_tables("09_cost.ipynb") if "MFLOP" in t["header"]]
    assert "÷ √dₖ" in [row[0] for row in steps["rows"]]


def test_the_window_figure_says_its_tokens_without_a_particle_after_them():
    """Finding 6: "사과를 밀려남" (the token ends in a particle already); "1번 슬롯" beside
    "슬롯 1"; 나중/밖 for a key not written yet and one outside the window."""
    written = korean("{token} written to slot {slot}")
    evicted = korean("{token} written to slot {slot}, evicting {evicted}")
    for template in (written, evicted):
        for field in re.findall(r"\{(token|evicted)\}", template):
            assert f"‘{{{field}}}’ 토큰" in template, template
        assert "슬롯 {slot}" in template
    assert not [s for s in i18n.words("ko").values() if "번 슬롯" in s]
    assert korean("later") == "아직 안 씀" and korean("out") == "윈도우 밖"
    filled = evicted.format(token="배를", slot=1, evicted="사과를")
    assert filled == "‘배를’ 토큰을 슬롯 1에 쓰고 ‘사과를’ 토큰은 윈도우 밖으로 밀려남"


def test_laptop_stays_raptop():
    """Finding 11: the laptop is 랩톱 in the figures (not 노트북, the notebook)."""
    assert korean("laptop") == "랩톱"


# --- no underscore a reader sees: an index is drawn as one (dₖ, Sₜ, d<sub>head</sub>, $d_k$)

#: Names of code, shown as the code spells them: chapter 10's mask conventions (an argument
#: and a function of attn_core), chapter 11's configuration fields (Hugging Face's names).
CODE_NAMES = {
    "is_causal",
    "causal_mask_lower_right",
    "sliding_window",
    "layer_types",
    "attn_logit_softcapping",
    "q_norm",
    "k_norm",
    "rope_local_base_freq",
    "attention_chunk_size",
    "no_rope_layers",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "time.process_time",  # the clocks the timing cells name (attn_book/timing.py)
    "time.perf_counter",
}
#: The memory calculator's slider labels: its withIndices draws "d_c" as d<sub>c</sub> and
#: "d_h^R" as d<sub>h</sub><sup>R</sup> (tests/test_widget_phone_layout.py sees them drawn).
WITH_INDICES = {"latent d_c", "RoPE key d_h^R", "state d_k = d_v"}


def underscores(text):
    """The words of ``text`` a reader would see with an underscore: outside its maths
    (``$d_k$``, matplotlib's mathtext and MathJax draw an index), its ``{fields}`` (filled in
    before it is drawn) and the names of code."""
    shown = re.sub(r"\$[^$]*\$", " ", str(text))
    shown = re.sub(r"\{\w+\}", " ", shown)
    return [w for w in re.findall(r"[\w.]*_[\w.]*", shown) if w not in CODE_NAMES]


def test_underscores_finds_an_index_and_spares_maths_fields_and_code():
    assert underscores("S_t, row 1") == ["S_t"]
    assert underscores("1/√d_head") == ["d_head"]
    assert underscores("|grad W_Q, W_K|") == ["W_Q", "W_K"]
    assert underscores("theory: {d_k}") == []
    assert underscores(r"2 × layers × $d_\text{head}$ × n") == []
    assert underscores("is_causal=True: top-left") == []
    assert underscores("Sₜ, row 1") == underscores("1/√d<sub>head</sub>") == []


def widget_words():
    from babel.messages.extract import extract_from_file

    for path in sorted((ROOT / "attn_book" / "widgets" / "src").glob("*.js")):
        for _, text, _, _ in extract_from_file("javascript", str(path), keywords={"t": None}):
            yield path.name, text


def test_no_widget_word_shows_an_underscore():
    """Every t("...") of the widgets' JavaScript, but the calculator's three labels that
    withIndices draws with <sub>; and those three are still in the bundle with it."""
    words = list(widget_words())
    assert len(words) > 100
    shown = [(name, w) for name, w in words if underscores(w) and w not in WITH_INDICES]
    assert not shown, shown
    source = (ROOT / "attn_book" / "widgets" / "src" / "memory_calculator.js").read_text()
    assert {w for _, w in words} >= WITH_INDICES and "withIndices(" in source


def chapter_figure_strings(path):
    """The string constants a chapter's code passes to a table (``step_table``), a plot
    (``plot_*``) and a figure's caption (``figures.show``'s third argument)."""
    import ast

    for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(call, ast.Call):
            continue
        name = getattr(call.func, "id", None) or getattr(call.func, "attr", "")
        if name == "step_table" or name.startswith("plot_"):
            parts = [*call.args, *(k.value for k in call.keywords)]
        elif name == "show" and len(call.args) >= 3:
            parts = call.args[2:3]
        else:
            continue
        for part in parts:
            for node in ast.walk(part):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    yield node.lineno, node.value


@pytest.mark.parametrize(
    "path", sorted((ROOT / "book").glob("[0-9][0-9]_*.py")), ids=lambda p: p.name
)
def test_no_chapter_figure_or_table_word_shows_an_underscore(path):
    """ "S_t, row 1", "dL/dk_j", "1/√d_head", "random keys, d_k = 16", "× d_head ×" in a
    caption: an index is a Unicode subscript (Sₜ, kⱼ, dₖ), <sub> where Unicode has none
    (d<sub>head</sub>, W<sub>Q</sub>) or maths in a caption ($d_\\text{head}$)."""
    shown = [(line, s) for line, s in chapter_figure_strings(path) if underscores(s)]
    assert not shown, shown


def test_chapter_8_names_its_rows_with_indices():
    """Chapter 8's second table names its rows from a dict whose keys the prose reads
    (``init["unscaled"]["median |dQ_i|, saturated rows"]``): the rows are drawn renamed."""
    source = (ROOT / "book" / "08_learning.py").read_text(encoding="utf-8")
    renamed = re.search(r"^shown = \{\n(.*?)^\}", source, re.S | re.M).group(1)
    import ast

    shown = ast.literal_eval("{" + renamed + "}")
    assert set(shown) == {
        "median |dQ_i|, saturated rows",
        "median |dQ_i|, other rows",
        "|grad W_Q, W_K|",
    }
    assert not [v for v in shown.values() if underscores(v)]
    assert 'index=[shown.get(k, k) for k in init["scaled"]]' in source


@pytest.mark.parametrize(
    ("english", "korean_word"),
    [
        ("Sₜ, column 1", "Sₜ, 1열"),
        ("median |dQᵢ|, saturated rows", "|dQᵢ| 중앙값, 포화된 행"),
        ("1/√d<sub>model</sub> (bug)", "1/√d<sub>model</sub> (버그)"),
        ("random keys, dₖ = 16", "무작위 키, dₖ = 16"),
        ("dL/dkⱼ", "dL/dkⱼ"),
    ],
)
def test_the_new_words_are_translated_with_the_same_indices(english, korean_word):
    assert korean(english) == korean_word


def test_no_stored_figure_word_or_korean_translation_shows_an_underscore():
    """What the notebooks record of their tables and figures (headings and cells, numbers and
    symbols among them: "v_t" has no word to translate) and every entry of the figures'
    catalog, English and Korean. Passes once the chapters are synced (make sync), since the
    stored outputs hold the words the chapters' code drew when it last ran."""
    import json

    seen = []
    for notebook in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                meta = output.get("metadata", {})
                table = meta.get("attn_table", {})
                cells = [*table.get("header", []), *(c for r in table.get("rows", []) for c in r)]
                seen += [(notebook.name, c) for c in [*cells, *meta.get("attn_words", [])]]
    catalog = i18n.po_entries((i18n.LOCALE / "ko" / "LC_MESSAGES" / "figures.po").read_text())
    seen += [
        ("figures.po", s)
        for e in catalog
        if e["id"] not in WITH_INDICES
        for s in (e["id"], e["string"])
    ]
    shown = sorted({(where, s) for where, s in seen if underscores(s)})
    assert not shown, shown


# --- no English a Korean textbook would translate, in a Korean figure or widget (issue #41)

#: The Latin words a Korean figure, table or widget may show: the maths' symbols and
#: functions, units, names (of models, methods, optimisers, hardware, keys of the keyboard),
#: Python's literals, and the English example sentences' tokens (chapters 3 and 7 keep theirs).
KOREAN_LATIN = {
    *"cos diag exp log max mod softmax tanh elu Var grad dA dL dQ dS dk dv ww".split(),
    *"nat FLOPs GFLOP MFLOP GB MB KiB MiB GiB ms".split(),
    *"CPU BLAS Adam SGD GPU GQA MHA MLA MQA KV QK PE RoPE NoPE NTK RMSNorm".split(),
    *"DeepSeek-V Gemma Llama Llama-3-8B Mistral gpt-oss gpt-oss-120b".split(),
    *"Qwen MiniMax-M Gated DeltaNet RMS E2B RNN transformers".split(),  # models, a library
    *"Shift Tab True False NaN inf".split(),
    *"the cat dog man bites apple ate".split(),
}
#: Names of code a Korean figure shows as the code spells them (chapter 11's fields).
KOREAN_CODE = {"sinks"}


def english_words(text):
    """The Latin words of ``text`` (a drawn string or a translation) a Korean reader would
    read as English: outside its ``{fields}``, its <sub>/<sup> indices and code names with an
    underscore, and not in :data:`KOREAN_LATIN`."""
    shown = re.sub(r"\{\w+\}|<su([bp])>.*?</su\1>", " ", str(text))
    shown = re.sub(r"[\w.]*_[\w.]*", " ", shown)
    found = re.findall(r"[A-Za-z][A-Za-z0-9-]*[A-Za-z]", shown)
    return [w for w in found if w not in KOREAN_LATIN | KOREAN_CODE]


def test_english_words_finds_a_gloss_and_spares_symbols_units_and_names():
    assert english_words("행: 쿼리(queries); 색: 0부터 1까지, viridis") == ["queries", "viridis"]
    assert english_words("엔트로피 H(w) = {H} nats") == ["nats"]
    assert english_words("Llama-3-8B-like, 3:1 hybrid") == ["Llama-3-8B-like", "hybrid"]
    assert english_words("Llama-3-8B 비슷한 모델, gpt-oss-120b, DeepSeek-V3") == []
    assert english_words("엔트로피(nat), log {n}, exp(s − max), 1/√d<sub>head</sub>") == []
    assert english_words("MLA: kv_lora_rank, GQA, 12.0 GiB") == []


def test_no_korean_figure_word_is_english():
    """Every Korean translation in figures.po: the widgets' legends ("쿼리(queries)",
    "viridis", "PuOr"), units ("nats"), glosses ("점수 s(scores)", "손실(loss)")."""
    catalog = i18n.po_entries((i18n.LOCALE / "ko" / "LC_MESSAGES" / "figures.po").read_text())
    shown = [(e["string"], w) for e in catalog for w in english_words(e["string"])]
    assert not shown, shown


def drawn_texts(fig):
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


def test_figure_2_1_draws_its_score_ticks_in_korean():
    """Fig. 2.1's ticks were "score 1/2/3" on the Korean page; chapter 2 passes them so."""
    args = ([f"score {x:g}" for x in (1.0, 2.0, 3.0)], {"÷ sum": [0.17, 0.33, 0.5]})
    english = plots.plot_weight_bars(*args)
    assert [t.get_text() for t in english.axes[0].get_xticklabels()] == args[0]
    with i18n.drawing("ko"):
        fig = plots.plot_weight_bars(*args)
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["점수 1", "점수 2", "점수 3"]
    assert not [w for t in drawn_texts(fig) for w in english_words(t)], drawn_texts(fig)
    plt.close("all")


def test_the_recall_figures_draw_no_english_in_korean():
    import numpy as np

    from attn_book.recall import RecallSweep

    ns = np.array([4, 16, 64])
    methods = ("softmax", "linear", "linear_elu", "delta")
    sweep = RecallSweep(ns, {m: 1 / ns for m in methods}, {m: 1 / ns for m in methods}, 1 / ns)
    with i18n.drawing("ko"):
        fig = plots.plot_recall({"random keys": sweep, "every key written twice": sweep}, d_k=16)
    assert not [w for t in drawn_texts(fig) for w in english_words(t)], drawn_texts(fig)
    plt.close("all")


def test_a_widget_names_the_padding_and_the_made_up_model_in_korean():
    """Widget 7.4 drew "<pad>" beside chapter 7's table's 패딩; widget 12.4's menu offered
    "Llama-3-8B-like, 3:1 hybrid". Each is a t("...") of its bundle, so a Korean state
    carries its translation; the English edition shows the English."""
    from attn_book.widgets import AttentionHeatmap, MemoryCalculator
    from attn_book.widgets._base import figure_words

    heatmap = figure_words(AttentionHeatmap._esm, "ko")
    assert heatmap["<pad>"] == korean("pad") == "패딩"
    name = "Llama-3-8B-like, 3:1 hybrid"
    calculator = figure_words(MemoryCalculator._esm, "ko")
    assert calculator[name] == "Llama-3-8B 같은 모델, 3 : 1 하이브리드"  # as the prose says
    assert not english_words(calculator[name])
    assert figure_words(MemoryCalculator._esm, "en") == {}
