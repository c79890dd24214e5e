"""The translations' machinery: gettext catalogs (attn_book/i18n.py, tools/i18n.py).

On a toy book of its own: a Korean notebook takes its prose unit by unit from the catalog and
copies code, outputs and stored numbers; a new English cell is an untranslated entry, not a
crash; a changed English paragraph or keyed text is marked fuzzy with its old English and a
word diff; the runtime reader agrees with Babel's. On the real book: the committed Korean
notebooks and pages are the generated ones, every entry is translated and current, and the
catalogs ship in the wheel.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import i18n as tool  # noqa: E402

from attn_book import i18n  # noqa: E402
from attn_book.exercises import catalog as cat  # noqa: E402
from attn_book.exercises import kinds  # noqa: E402

babel = pytest.importorskip("babel", reason="the catalogs' tools need Babel (the book extra)")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
KOREAN_PO = sorted((i18n.LOCALE / "ko" / "LC_MESSAGES").rglob("*.po"))  # comments/ too


def po_id(path):
    return str(path.relative_to(i18n.LOCALE / "ko" / "LC_MESSAGES").with_suffix(""))


def clear():
    i18n._catalog.cache_clear()
    i18n.keyed.cache_clear()
    cat.catalog.cache_clear()


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A book/ with one chapter ("toy": a heading and a paragraph, a code cell that shows a
    figure, two more paragraphs), its catalog in Korean and a keyed text."""
    (tmp_path / "ko").mkdir()
    locale = tmp_path / "locale"
    (locale / "ko" / "LC_MESSAGES").mkdir(parents=True)
    (locale / "messages.pot").write_text(
        (i18n.LOCALE / "messages.pot").read_text("utf-8"), encoding="utf-8"
    )
    monkeypatch.setattr(tool, "BOOK", tmp_path)
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "page_names", lambda: ["toy"])
    monkeypatch.setattr(i18n, "LOCALE", locale)
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_markdown_cell("# The title\n\nThe score is {eval}`s`.")
    first.metadata["user_expressions"] = [
        {"expression": "s", "result": {"status": "ok", "data": {"text/plain": "2"}}}
    ]
    code = nbformat.v4.new_code_cell("s = 2\nfigures.show(fig, 'fig-a', 'Weights for {x}.', x=s)")
    code.outputs = [
        nbformat.v4.new_output(
            "display_data",
            {"text/markdown": "**Figure 1.1.** Weights for 2.", "text/plain": "<Markdown>"},
            metadata={"attn_figure": {"name": "fig-a", "caption": "Weights for {x}.",
                                      "values": {"x": "2"}}},
        )
    ]  # fmt: skip
    nb.cells = [
        first,
        code,
        nbformat.v4.new_markdown_cell("Softmax turns scores into weights.\n\n$$ x = 1 $$"),
        nbformat.v4.new_markdown_cell("The end."),
    ]
    nbformat.write(nb, tmp_path / "toy.ipynb")
    clear()
    tool.update(["ko"])
    korean = {
        "# The title": "# 제목",
        "The score is {eval}`s`.": "점수는 {eval}`s`이다.",
        "Weights for {x}.": "{x}에 대한 가중치.",
        "Softmax turns scores into weights.": "소프트맥스는 점수를 가중치로 바꾼다.",
        "$$ x = 1 $$": "$$ x = 1. $$",
        "The end.": "끝.",
    }
    translate(korean)
    yield tmp_path
    clear()


def translate(korean, domain="toy"):
    """A translator at work: fill the catalog's entries and drop their fuzzy marks."""
    catalog = tool.load("ko", domain)
    for message in catalog:
        if message.id in korean:
            message.string = korean[message.id]
            message.flags.discard("fuzzy")
            message.previous_id = []
    tool.save(catalog, "ko", domain)
    clear()


def english_cell(book, index, source):
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells[index].source = source
    nbformat.write(nb, book / "toy.ipynb")


def korean_notebook():
    return nbformat.reads(tool.build_notebook("toy", "ko"), as_version=4)


def test_a_korean_notebook_is_the_english_one_with_its_prose_from_the_catalog(book):
    nb = korean_notebook()
    assert [c.source for c in nb.cells if c.cell_type == "markdown"] == [
        "# 제목\n\n점수는 {eval}`s`이다.",
        "소프트맥스는 점수를 가중치로 바꾼다.\n\n$$ x = 1. $$",
        "끝.",
    ]
    assert nb.cells[0].metadata["user_expressions"][0]["result"]["data"] == {"text/plain": "2"}
    assert nb.cells[1].source.startswith("s = 2")
    assert nb.cells[1].outputs[0]["data"]["text/markdown"] == "**그림 1.1.** 2에 대한 가중치."
    assert tool.status("ko", ["toy"]) == []


def test_a_new_english_cell_is_an_untranslated_entry_and_stays_english(book):
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells.insert(3, nbformat.v4.new_markdown_cell("A new paragraph on the mask."))
    nbformat.write(nb, book / "toy.ipynb")
    assert "A new paragraph on the mask." in [c.source for c in korean_notebook().cells]
    (line,) = tool.status("ko", ["toy"])
    assert "not in the catalog" in line
    tool.update(["ko"])
    (line,) = tool.status("ko", ["toy"])
    assert line.endswith('not translated: "A new paragraph on the mask."')


def test_a_changed_paragraph_is_fuzzy_with_its_old_english_and_a_word_diff(book):
    english_cell(book, 2, "Softmax turns the scaled scores into weights.\n\n$$ x = 1 $$")
    tool.update(["ko"])
    (line,) = tool.status("ko", ["toy"])
    assert "fuzzy" in line and "{+the scaled+}" in line
    po = (i18n.LOCALE / "ko" / "LC_MESSAGES" / "toy.po").read_text("utf-8")
    assert '#| msgid "Softmax turns scores into weights."' in po
    # until it is reviewed, the reader sees the current English, not a stale translation
    assert "Softmax turns the scaled scores into weights." in korean_notebook().cells[2].source
    translate({"Softmax turns the scaled scores into weights.": "소프트맥스는 스케일링한 점수를 …"})
    assert tool.status("ko", ["toy"]) == []


def test_a_changed_caption_is_fuzzy_by_its_figure(book):
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells[1].outputs[0]["metadata"]["attn_figure"]["caption"] = "The weights for {x}."
    nbformat.write(nb, book / "toy.ipynb")
    tool.update(["ko"])
    (line,) = tool.status("ko", ["toy"])
    assert "[figure fig-a] fuzzy" in line and "[-Weights-] {+The weights+}" in line


def test_a_changed_keyed_text_is_fuzzy_by_its_key_and_falls_back_to_english(book):
    key = "engine/icon-correct"
    translate({"✓ Correct": "✓ 정답"}, "messages")
    assert i18n.keyed("ko")[key] == "✓ 정답"
    pot = i18n.LOCALE / "messages.pot"
    pot.write_text(pot.read_text("utf-8").replace('"✓ Correct"', '"✓ Right"'), "utf-8")
    clear()
    assert i18n.keyed("ko")[key] == "✓ Right"  # the old Korean no longer says what English says
    tool.update(["ko"])
    found = [line for line in tool.status("ko", ["messages"]) if key in line]
    assert len(found) == 1 and found[0].endswith(
        "fuzzy, its English changed: ✓ [-Correct-] {+Right+}"
    )


PRINTING = [
    "def report(ok):\n    print('all agree:', ok)",
    'n = 3\nprint(f"gap {n}: norm {n / 4:.2f}", "k1")\nprint("same weights:", True)\nreport(1)',
]


def printing_cells(book):
    """Two code cells that print (one through a function the first defines), with their
    outputs as the English notebook stores them."""
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    cells = [nbformat.v4.new_code_cell(source) for source in PRINTING]
    cells[1].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text=printed(cells[0].source, PRINTING[1]))
    ]
    nb.cells[2:2] = cells
    nbformat.write(nb, book / "toy.ipynb")
    tool.update(["ko"])


def printed(*sources):
    """What running ``sources`` in one namespace prints."""
    import contextlib
    import io

    out, namespace = io.StringIO(), {}
    with contextlib.redirect_stdout(out):
        for source in sources:
            exec(source, namespace)
    return out.getvalue()


def test_the_code_prints_its_words_from_the_catalog_and_its_stored_output_says_so(book):
    printing_cells(book)
    entries = [m.id for m in tool.load("ko", tool.CODE) if m.id]
    assert entries == ["all agree:", "gap ", ": norm ", "same weights:"]  # not "k1": no words
    translate(
        {"all agree:": "모두 같은가:", "gap ": "차이 ", ": norm ": ': "노름" ',
         "same weights:": "같은 가중치인가:"},
        domain=tool.CODE,
    )  # fmt: skip
    korean = korean_notebook().cells
    assert korean[2].source == "def report(ok):\n    print('모두 같은가:', ok)"
    assert 'print(f"차이 {n}: \\"노름\\" {n / 4:.2f}", "k1")' in korean[3].source
    stored = korean[3].outputs[0]["text"]
    assert stored == '차이 3: "노름" 0.75 k1\n같은 가중치인가: True\n모두 같은가: 1\n'
    assert stored == printed(korean[2].source, korean[3].source)  # what the Korean code prints


def test_untranslated_printed_words_stay_english_in_code_and_output(book):
    printing_cells(book)
    english = nbformat.read(book / "toy.ipynb", as_version=4).cells
    korean = korean_notebook().cells
    assert [c.source for c in korean[2:4]] == PRINTING
    assert korean[3].outputs[0]["text"] == english[3].outputs[0]["text"]
    assert any("not translated" in line for line in tool.status("ko", [tool.CODE]))


COMMENTED = (
    "# the scores, one per key:\n"
    "# a dot product each\n"
    "scores = keys @ q  # [S, d_k] @ [d_k] -> [S]\n"
    "label = 'a # in a string'  # not code\n"
    "import numpy as np  # noqa: E402\n"
    "out = scores / 2  # out / scores\n"
    "def f(x):\n"
    "    # halve it\n"
    "    return x / 2  # half"
)


def commented_cell(book):
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells.insert(2, nbformat.v4.new_code_cell(COMMENTED))
    nbformat.write(nb, book / "toy.ipynb")
    tool.update(["ko"])


def test_the_comments_with_words_are_a_chapters_catalog_of_their_own(book):
    """Comments by the tokenizer (not the "#" in a string), a block of full-line comments as one
    entry; no shape, pragma, nor a comment of only the cell's names."""
    commented_cell(book)
    domain = tool.comments_domain("toy")
    assert tool.po_path("ko", domain) == i18n.LOCALE / "ko/LC_MESSAGES/comments/toy.po"
    assert [m.id for m in tool.load("ko", domain) if m.id] == [
        "the scores, one per key:\na dot product each", "not code", "halve it", "half",
    ]  # fmt: skip
    assert "half" not in [m.id for m in tool.load("ko", "toy")]  # the prose's catalog is apart
    assert (
        sorted(line.split(": not translated")[0] for line in tool.status("ko", ["toy"]))
        == [
            "locale/ko/LC_MESSAGES/comments/toy.po",
        ]
        * 4
    )


def test_the_korean_code_has_the_translated_comments_and_the_same_code(book):
    commented_cell(book)
    translate(
        {"the scores, one per key:\na dot product each": "키마다 점수 하나, 각각 내적",
         "not code": "코드가 아니다", "halve it": "반으로\n나눈다"},
        domain=tool.comments_domain("toy"),
    )  # fmt: skip
    korean = korean_notebook().cells[2].source
    assert korean == (
        "# 키마다 점수 하나, 각각 내적\n"
        "scores = keys @ q  # [S, d_k] @ [d_k] -> [S]\n"
        "label = 'a # in a string'  # 코드가 아니다\n"
        "import numpy as np  # noqa: E402\n"
        "out = scores / 2  # out / scores\n"
        "def f(x):\n"
        "    # 반으로\n"
        "    # 나눈다\n"
        "    return x / 2  # half"
    )
    assert (
        tool.without_comments(korean)
        == tool.without_comments(COMMENTED)
        == (
            "scores = keys @ q\nlabel = 'a # in a string'\nimport numpy as np\nout = scores / 2\n"
            "def f(x):\n    return x / 2"
        )
    )
    assert tool.without_comments(korean.replace("x / 2", "x/2")) != tool.without_comments(COMMENTED)
    (line,) = tool.status("ko", ["toy"])
    assert line == 'locale/ko/LC_MESSAGES/comments/toy.po: not translated: "half"'


SOLUTION = (
    "````{solution} ex-toy\n"
    ":class: dropdown\n"
    "\n"
    "The fix:\n"
    "\n"
    "```python\n"
    "def fixed(x):\n"
    '    """Halve x, the\n'
    "    toy's way.\n"
    '    """\n'
    "    y = x / 2  # halve it\n"
    "    print('by hand:', y)  # the printed label\n"
    "    return y\n"
    "```\n"
    "````"
)
DOCUMENTED = 'def g(v):\n    r"""The \\sum of v."""\n    return v.sum()  # half'


def documented_book(book):
    """The toy book with a folded solution (Python fenced in Markdown) and a cell whose
    function has a docstring."""
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells.insert(3, nbformat.v4.new_markdown_cell(SOLUTION))
    nb.cells.insert(4, nbformat.v4.new_code_cell(DOCUMENTED))
    nbformat.write(nb, book / "toy.ipynb")
    tool.update(["ko"])


def test_the_fenced_code_and_the_docstrings_are_in_the_comments_catalog(book):
    documented_book(book)
    entries = [(m.context, m.id) for m in tool.load("ko", tool.comments_domain("toy")) if m.id]
    assert entries == [
        ("docstring", "Halve x, the\ntoy's way."), (None, "halve it"),
        (None, "the printed label"), ("docstring", "The \\sum of v."), (None, "half"),
    ]  # fmt: skip
    assert "by hand:" in [m.id for m in tool.load("ko", tool.CODE)]  # a fence's printed words


def test_a_korean_fence_and_docstring_get_their_words_and_keep_their_code(book):
    documented_book(book)
    english_bytes = (book / "toy.ipynb").read_bytes()
    solution = SOLUTION.replace("The fix:", "고친 곳:")
    translate({SOLUTION: solution})  # the chapter's msgstr copies the code
    translate(
        {"Halve x, the\ntoy's way.": "x를 반으로,\n장난감 방식으로.", "halve it": "반으로 나눈다",
         "The \\sum of v.": "v의 \\sum.", "half": "절반"},
        domain=tool.comments_domain("toy"),
    )  # fmt: skip
    translate({"by hand:": "손으로:"}, domain=tool.CODE)
    cells = korean_notebook().cells
    fence = cells[3].source
    assert fence == solution.replace(
        '    """Halve x, the\n    toy\'s way.\n', '    """x를 반으로,\n    장난감 방식으로.\n'
    ).replace("# halve it", "# 반으로 나눈다").replace("'by hand:'", "'손으로:'")
    assert "# the printed label" in fence  # not translated yet: stays English
    assert cells[4].source == 'def g(v):\n    r"""v의 \\sum."""\n    return v.sum()  # 절반'
    (en_code,) = [SOLUTION[a:b] for a, b in tool.fenced_code(SOLUTION)]
    (ko_code,) = [fence[a:b] for a, b in tool.fenced_code(fence)]
    assert tool.without_comments(tool.without_docstrings(ko_code)) == tool.without_comments(
        tool.without_docstrings(tool.translate_code(en_code, "ko"))
    )
    assert (
        code_of(cells[4].source)
        == code_of(DOCUMENTED)
        == 'def g(v):\n    r""""""\n    return v.sum()'
    )
    assert code_of(cells[4].source.replace("v.sum", "v.mean")) != code_of(DOCUMENTED)
    namespace = {}
    exec(ko_code, namespace)  # the reader's copy runs, and says what the Korean code says
    assert namespace["fixed"].__doc__.startswith("x를 반으로")
    assert (book / "toy.ipynb").read_bytes() == english_bytes  # the English is untouched


def test_a_hand_translated_fence_keeps_its_words_and_gets_the_rest(book):
    """A translator who put some comments of a fence in Korean in the chapter's msgstr keeps
    them; what is still a catalog's English is translated, nothing twice."""
    documented_book(book)
    translate({SOLUTION: SOLUTION.replace("# halve it", "# 반으로")})
    translate(
        {"halve it": "반으로 나눈다", "the printed label": "출력하는 라벨"},
        domain=tool.comments_domain("toy"),
    )
    fence = korean_notebook().cells[3].source
    assert "# 반으로\n" in fence and "반으로 나눈다" not in fence
    assert "# 출력하는 라벨" in fence


def test_a_translation_may_quote_only_the_english_expressions(book):
    translate({"The score is {eval}`s`.": "점수는 {eval}`s * 2`이다."})
    with pytest.raises(SystemExit, match=r"does not evaluate: s \* 2"):
        tool.build_notebook("toy", "ko")


def test_segments_keep_every_character_and_cut_where_a_translator_would():
    text = "# T\n\nA\nb\n\n| a | b |\n|---|---|\n\n```{note}\n\nin\n```\n\n$$\n\nx\n$$ (eq)\n"
    parts = i18n.segments(text)
    assert "".join(s + sep for s, sep in parts) == text
    assert [s for s, _ in parts] == [
        "# T", "A\nb", "| a | b |", "|---|---|", "```{note}\n\nin\n```", "$$\n\nx\n$$ (eq)",
    ]  # fmt: skip
    assert not i18n.has_words("```python\nanswer = softmax(x)\n```")
    assert i18n.has_words("````{solution} ex-a\n:class: dropdown\n\nThe answer.\n````")


@pytest.mark.parametrize("path", KOREAN_PO, ids=po_id)
def test_the_runtime_reader_agrees_with_babel(path):
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        expected = [(m.context, m.id, m.string, m.fuzzy) for m in read_po(f) if m.id]
    got = [
        (e["context"], e["id"], e["string"], e["fuzzy"])
        for e in i18n.po_entries(path.read_text("utf-8"))
    ]
    assert got == expected


# --- the committed Korean edition ------------------------------------------------------------


@pytest.mark.parametrize("name", tool.page_names())
def test_the_committed_korean_page_is_the_generated_one(name):
    path, text = tool.built(name, "ko")
    assert path.read_text(encoding="utf-8") == text, (
        f"run tools/i18n.py (make sync does) and commit {path.relative_to(ROOT)}"
    )


def test_the_committed_catalogs_are_what_an_update_writes():
    """``tools/i18n.py update`` on this tree changes no catalog: each is merged with today's
    English (an entry for every unit, none left over) and written as the tool writes it."""
    stale = [
        domain
        for domain, catalog in tool.updated("ko").items()
        if tool.po_path("ko", domain).read_bytes() != tool.serialize(catalog)
    ]
    assert stale == [], "run tools/i18n.py update (make sync does) and commit the catalogs"


def test_every_entry_of_every_korean_catalog_is_translated_and_current():
    """An untranslated, fuzzy or missing entry, named with its file and its English."""
    assert tool.status("ko") == []


def code_of(source):
    """``source``'s code: without its comments and its docstrings' words."""
    return tool.without_comments(tool.without_docstrings(source))


def options_in_english(source):
    """``source`` with each quoted Korean option of a choice exercise that a solution answers
    with (its ``check("…")`` or ``answer = "…"``, which the checker accepts in either language)
    as its English value; a quoted ``"0"`` elsewhere is data, left as it is."""
    for own in kinds.catalog("ko")["exercises"].values():
        for key, words in own.items():
            if key.startswith("option-"):
                english = key.removeprefix("option-")
                for spot in ('check("{}")', 'answer = "{}"'):
                    source = source.replace(spot.format(words), spot.format(english))
    return source


@pytest.mark.parametrize("name", [n for n in tool.page_names() if n[0].isdigit()])
def test_the_korean_code_cells_are_the_english_ones(name):
    english = nbformat.read(ROOT / "book" / f"{name}.ipynb", as_version=4)
    korean = nbformat.read(ROOT / "book" / "ko" / f"{name}.ipynb", as_version=4)
    assert [c.cell_type for c in korean.cells] == [c.cell_type for c in english.cells]
    for en, ko in zip(english.cells, korean.cells, strict=True):
        if en.cell_type == "code":  # the same code, printing its words in Korean; its comments
            assert (code_of(ko.source), len(ko.outputs)) == (  # and docstrings in Korean
                code_of(tool.translate_code(en.source, "ko")),
                len(en.outputs),
            )
        elif i18n.has_words(en.source):
            assert HANGUL.search(ko.source), ko.source[:80]
        if en.cell_type == "markdown":  # the Python it fences: the same code too
            en_fences = [
                code_of(tool.translate_code(en.source[a:b], "ko"))
                for a, b in tool.fenced_code(en.source)
            ]
            ko_fences = [
                code_of(options_in_english(ko.source[a:b])) for a, b in tool.fenced_code(ko.source)
            ]
            assert ko_fences == en_fences, ko.source[:80]
    said = [
        json.dumps(e["result"])
        for c in korean.cells
        for e in c.metadata.get("user_expressions", [])
    ]
    said += [json.dumps(o.get("data", {})) for c in korean.cells for o in c.get("outputs", [])]
    said += [c.source for c in korean.cells if c.cell_type == "markdown"]
    assert not [s for s in said if re.search(r"Figure \d+\.\d+", s)]  # a figure is a 그림


@pytest.mark.parametrize("name", [n for n in tool.page_names() if n[0].isdigit()])
def test_every_comment_with_words_of_the_korean_code_is_korean(name):
    """No comment or docstring a translator translates (:func:`tool.code_comments`,
    :func:`tool.docstrings`) is left in English in the Korean notebook: in a code cell, in the
    Python a Markdown cell fences (a folded solution) or in a source an output shows (a
    find-the-bug exercise's); and each one the Korean changed is Hangul: a comment of only
    code, a shape, a number or a pragma stays as the English writes it."""
    english = nbformat.read(ROOT / "book" / f"{name}.ipynb", as_version=4)
    korean = nbformat.read(ROOT / "book" / "ko" / f"{name}.ipynb", as_version=4)
    english_left, not_korean = [], []
    for n, (en, ko) in enumerate(zip(english.cells, korean.cells, strict=True)):
        for en_source, ko_source in zip(shown_code(en), shown_code(ko), strict=True):
            for words in (comment_words, docstring_words):
                shown, extracted, unchanged = (
                    words(ko_source),
                    words(en_source, True),
                    words(en_source),
                )
                english_left += [f"cell {n}: {text!r}" for text in sorted(extracted & shown)]
                not_korean += [
                    f"cell {n}: {t!r}" for t in sorted(shown - unchanged) if not HANGUL.search(t)
                ]
    assert english_left == [], (
        f"translate them in attn_book/locale/ko/LC_MESSAGES/comments/{name}.po, then run "
        "tools/i18n.py build"
    )
    assert not_korean == []


def shown_code(cell):
    """The Python a reader sees in ``cell``: a code cell's source and the sources its outputs
    show fenced; a Markdown cell's fenced blocks."""
    if cell.cell_type != "code":
        return [cell.source[a:b] for a, b in tool.fenced_code(cell.source)]
    shown = [o.get("data", {}).get("text/markdown", "") for o in cell.get("outputs", [])]
    return [cell.source, *(md[a:b] for md in shown for a, b in tool.fenced_code(md))]


def comment_words(source, extracted=False):
    if extracted:
        return {text for *_, text in tool.code_comments(source)}
    return {"\n".join(lines) for *_, lines in tool._comment_blocks(source)}


def docstring_words(source, extracted=False):
    return {text for *_, text in tool.docstrings(source, every=not extracted)}


@pytest.mark.parametrize("path", KOREAN_PO, ids=po_id)
def test_a_translation_keeps_the_englishs_template_fields_labels_and_expressions(path):
    """The same ``{names}`` in a keyed text or caption, the same {eval} expressions, labels
    and equation references in prose, and every link of the English (to the same section: a
    Korean heading has its English twin's id); a translation may add a link."""
    wrong = []
    for e in i18n.po_entries(path.read_text("utf-8")):
        if not e["string"]:  # not translated yet: test_every_entry_... names it
            continue
        if e["context"]:  # a str.format template
            same = tool_fields(e["id"]) == tool_fields(e["string"])
        else:
            pattern = r"\{eval\}`[^`]+`|:label: \S+|\{eq\}`[^`]+`|\(eq-[\w-]+\)"
            same = sorted(re.findall(pattern, e["id"])) == sorted(re.findall(pattern, e["string"]))
        links = re.compile(r"\]\(([^)\s]+)\)")  # the English's link targets, fragment and all
        english_links, korean_links = links.findall(e["id"]), links.findall(e["string"])
        same = same and all(english_links.count(t) <= korean_links.count(t) for t in english_links)
        if not same:
            wrong.append(f"{e['context'] or ''} {e['id'][:60]!r}")
    assert wrong == []


def tool_fields(template):
    import string

    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def wheel_files():
    """What a wheel holds: attn_book's and attn_core's modules and the package data
    pyproject.toml names."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    data = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    files = set((ROOT / "attn_book").rglob("*.py")) | set((ROOT / "attn_core").rglob("*.py"))
    for package, globs in data["package-data"].items():
        folder = ROOT.joinpath(*package.split("."))
        files |= {f for g in globs for f in folder.glob(g)}
    return files


def test_the_catalogs_ship_in_the_package_and_an_installed_kernel_shows_korean(tmp_path):
    """A regular (not editable) install, away from the repository's book/, reads the same
    catalogs: they are the package's own files."""
    shipped = wheel_files()
    assert {*i18n.LOCALE.rglob("*.po"), i18n.LOCALE / "messages.pot"} <= shipped
    for path in shipped:
        target = tmp_path / "site" / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    english = next(
        o["metadata"]["attn_figure"]["caption"]
        for c in nbformat.read(ROOT / "book/04_worked_example.ipynb", as_version=4).cells
        for o in c.get("outputs", [])
        if o.get("metadata", {}).get("attn_figure", {}).get("name") == "fig-convex"
    )
    code = f"""import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, {str(tmp_path / "site")!r})
import attn_book
from attn_book.figures import translated_caption
from attn_book.exercises.catalog import text
print(attn_book.__file__)
print(text("icon-correct"))
print(translated_caption(sys.argv[1], "fig-convex", 4, "ko"))
"""
    out = subprocess.run(
        [sys.executable, "-c", code, english], cwd=tmp_path, env={"ATTN_BOOK_LANG": "ko"},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    where, correct, caption = out.stdout.splitlines()
    assert where.startswith(str(tmp_path))
    assert correct == "✓ 정답" and HANGUL.search(caption) and caption != english


def test_no_catalog_carries_stray_comment_lines():
    """Merges and hand edits left wrapped fragments of old msgids as "# ..." comments, which
    every update then keeps; a catalog holds only its header's comments and Babel's own
    (``#:`` locations, ``#,`` flags, ``#|`` previous msgids)."""
    stray = [
        f"{path.name}:{n}"
        for path in sorted(i18n.LOCALE.rglob("*.po"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if line.startswith("# ") and n > 5
    ]
    assert stray == []


def test_a_shown_buggy_function_is_in_the_kernels_language_as_the_stored_output_says():
    """``show()`` of a find-the-bug exercise: in a Korean kernel the comments and docstring of
    its chapter's catalog (what the Korean notebook stores, so nbval agrees), in an English
    one the source as written."""
    import inspect
    import textwrap

    from attn_book.code_words import translate_shown
    from attn_book.exercises.kinds import BugExercise, all_exercises

    shown = {}
    for name in [n for n in tool.page_names() if n[0].isdigit()]:
        korean = nbformat.read(ROOT / "book" / "ko" / f"{name}.ipynb", as_version=4)
        for cell in korean.cells:
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if data.get("text/markdown", "").startswith("```python\ndef "):
                    shown[data["text/plain"].split("(")[0].removeprefix("def ")] = data
    bugs = [e for e in all_exercises() if isinstance(e, BugExercise)]
    assert len(bugs) >= 12
    checked = 0
    for exercise in bugs:
        source = textwrap.dedent(inspect.getsource(exercise.buggy))
        assert translate_shown(source, exercise.buggy.__module__, "en") == source
        data = shown.get(exercise.buggy.__name__)
        if data is None:
            continue
        korean = translate_shown(source, exercise.buggy.__module__, "ko")
        assert data["text/markdown"] == f"```python\n{korean}```"
        assert korean != source and HANGUL.search(korean)
        checked += 1
    assert checked >= 12


@pytest.mark.parametrize("name", [n for n in tool.page_names() if n[0].isdigit()])
def test_the_korean_fenced_python_still_compiles(name):
    """A reader copies a folded solution into a cell: each block of Python a Korean Markdown
    cell fences compiles when its English one does (a translated docstring keeps its quotes,
    a translated comment stays a comment), and defines the same names."""
    english = nbformat.read(ROOT / "book" / f"{name}.ipynb", as_version=4)
    korean = nbformat.read(ROOT / "book" / "ko" / f"{name}.ipynb", as_version=4)
    checked = 0
    for en, ko in zip(english.cells, korean.cells, strict=True):
        for en_code, ko_code in zip(shown_code(en), shown_code(ko), strict=True):
            try:
                en_tree = ast.parse(en_code)
            except SyntaxError:
                continue
            ko_tree = ast.parse(ko_code)
            names = [
                [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
                for tree in (en_tree, ko_tree)
            ]
            assert names[0] == names[1]
            checked += 1
    assert checked or name in ("98_pytorch_buffers", "99_figure_gallery")


def test_a_timing_fallback_word_in_prose_is_translated():
    """Chapter 10's last-level cache, where the system does not report it, is
    ``word("unknown")``: a Korean kernel computes "알 수 없음", so the stored {eval} value copied
    into the Korean notebook says the same; any other string, and the English, stay as they are."""
    unknown = {"data": {"text/plain": "'unknown'"}, "metadata": {}, "status": "ok"}
    known = {"data": {"text/plain": "'L3, 480 MiB'"}, "metadata": {}, "status": "ok"}
    assert tool.stored_value("llc_text", unknown, "ko")["data"]["text/plain"] == "'알 수 없음'"
    assert tool.stored_value("llc_text", unknown, "en") == unknown
    assert tool.stored_value("llc_text", known, "ko") == known
    assert unknown["data"]["text/plain"] == "'unknown'"  # the English notebook's value, unchanged
