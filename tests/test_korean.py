"""The Korean edition: one code, two proses (tools/build_korean.py, book/ko/).

- the committed Korean notebooks are what the generator writes from the English notebooks
  (code cells and outputs equal, the prose's stored numbers the English ones);
- no Korean block is stale, missing or orphaned (the drift test, gettext's "fuzzy");
- a glossary term of an English passage appears in its Korean block in the glossary's form;
- the exercises answer in Korean in a kernel started in book/ko, and the Korean catalog has
  the English ids and the English template fields.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build_korean as bk  # noqa: E402

from attn_book.exercises import catalog as cat  # noqa: E402
from attn_book.figures import caption_text  # noqa: E402

CHAPTERS = [n for n in bk.translated() if (bk.BOOK / f"{n}.ipynb").is_file()]
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def test_the_pilot_pages_are_translated():
    assert {"intro", "04_worked_example"} <= set(bk.translated())


# --- the generator, on a small English notebook of its own ----------------------------------


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A book/ with one chapter of three Markdown cells and one code cell, and its ko/."""
    (tmp_path / "ko").mkdir()
    monkeypatch.setattr(bk, "BOOK", tmp_path)
    monkeypatch.setattr(bk, "KO", tmp_path / "ko")
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_markdown_cell("# The title\n\nThe score is {eval}`s`.")
    first.metadata["user_expressions"] = [
        {"expression": "s", "result": {"status": "ok", "data": {"text/plain": "2"}}}
    ]
    code = nbformat.v4.new_code_cell("s = 2\nch.ex.check(...)")
    code.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            {
                "text/plain": f"{cat.text('icon-unanswered', language='en')}: "
                f"{cat.text('unanswered-value', language='en')}"
            },
            execution_count=1,
        )
    ]
    nb.cells = [
        first,
        code,
        nbformat.v4.new_markdown_cell("Softmax turns scores into weights."),
        nbformat.v4.new_markdown_cell("The end."),
    ]
    nbformat.write(nb, tmp_path / "toy.ipynb")
    blocks = [
        bk.Block(bk.cell_hash(nb.cells[0].source), "# 제목\n\n점수는 {eval}`s`이다."),
        bk.Block(bk.cell_hash(nb.cells[2].source), "소프트맥스는 점수를 가중치로 바꾼다."),
        bk.Block(bk.cell_hash(nb.cells[3].source), "끝."),
    ]
    (tmp_path / "ko" / "toy.md").write_text(bk.write_blocks(blocks), encoding="utf-8")
    return tmp_path


def english_cell(book, index, source):
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells[index].source = source
    nbformat.write(nb, book / "toy.ipynb")


def test_the_korean_notebook_copies_code_and_takes_the_prose_and_its_numbers(book):
    nb = bk.build_notebook("toy")
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "markdown", "markdown"]
    assert nb.cells[0].source == "# 제목\n\n점수는 {eval}`s`이다."
    assert nb.cells[0].metadata["user_expressions"][0]["result"]["data"] == {"text/plain": "2"}
    assert nb.cells[1].source == "s = 2\nch.ex.check(...)"
    said = nb.cells[1].outputs[0]["data"]["text/plain"]
    assert said == "… 아직 답이 없음: `...`를 답으로 바꾸고 셀을 다시 실행하라."
    assert bk.drift("toy") == []


def test_a_korean_block_may_quote_only_the_english_expressions(book):
    text = (book / "ko" / "toy.md").read_text(encoding="utf-8")
    (book / "ko" / "toy.md").write_text(text.replace("{eval}`s`", "{eval}`s * 2`"), "utf-8")
    with pytest.raises(ValueError, match=r"does not evaluate: s \* 2"):
        bk.build_notebook("toy")


def test_drift_names_a_changed_passage_and_accept_records_its_new_hash(book):
    old = bk.cell_hash("Softmax turns scores into weights.")
    english_cell(book, 2, "Softmax turns the scaled scores into weights.")
    (line,) = bk.drift("toy")
    assert f"<!-- en {old} -->" in line and '"Softmax turns the scaled scores' in line
    assert f"--accept toy {old}" in line
    bk.accept("toy", old)
    assert bk.drift("toy") == []
    (block,) = [
        b for b in bk.parse_blocks((book / "ko" / "toy.md").read_text()) if "소프트" in b.text
    ]
    assert block.hash == bk.cell_hash("Softmax turns the scaled scores into weights.")


def test_drift_names_a_new_passage_without_a_block_and_an_orphan_block(book):
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    nb.cells.insert(3, nbformat.v4.new_markdown_cell("A new paragraph on the mask."))
    nbformat.write(nb, book / "toy.ipynb")
    (found,) = bk.drift("toy")
    assert "has no Korean block" in found and '"A new paragraph on the mask."' in found
    del nb.cells[2:4]  # the softmax paragraph goes, and the new one
    nbformat.write(nb, book / "toy.ipynb")
    (found,) = bk.drift("toy")
    assert "translates no English passage" in found and "소프트맥스는" in found


def test_drift_names_a_block_still_in_english(book):
    bk.KO.joinpath("toy.md").unlink()
    bk.new("toy")
    found = bk.drift("toy")
    assert len(found) == 3 and all("still the English text" in f for f in found), found


def add_figure(book, template, values):
    """The toy chapter shows figure fig-a, as attn_book.figures.Figures.show records it."""
    nb = nbformat.read(book / "toy.ipynb", as_version=4)
    record = {"name": "fig-a", "caption": template, "values": values}
    text = caption_text("en", "3.1", template, values)
    nb.cells[1].outputs.append(
        nbformat.v4.new_output(
            "display_data",
            {"text/markdown": text, "text/plain": "<IPython.core.display.Markdown object>"},
            metadata={"attn_figure": record},
        )
    )
    nb.cells[2].source = 'See {eval}`figures.ref("fig-a")`.'
    nb.cells[2].metadata["user_expressions"] = [
        {
            "expression": 'figures.ref("fig-a")',
            "result": {"status": "ok", "data": {"text/plain": "'Figure 3.1'"}},
        }
    ]
    nbformat.write(nb, book / "toy.ipynb")
    ko = book / "ko" / "toy.md"
    text = ko.read_text(encoding="utf-8").replace(
        "소프트맥스는 점수를 가중치로 바꾼다.", '{eval}`figures.ref("fig-a")` 참조.'
    )
    ko.write_text(
        text.replace(
            bk.cell_hash("Softmax turns scores into weights."), bk.cell_hash(nb.cells[2].source)
        ),
        encoding="utf-8",
    )


def test_a_caption_is_translated_as_a_template_filled_with_the_english_values(book):
    add_figure(book, "Weights for {scores}; {{braces}} stay.", {"scores": "[1, 2]"})
    (line,) = bk.drift("toy")
    assert "figure fig-a has no Korean caption block" in line
    bk.add_captions("toy")
    assert bk.drift("toy") == ["toy: the caption of fig-a is still the English text"]
    ko = book / "ko" / "toy.md"
    ko.write_text(ko.read_text().replace("Weights for {scores}", "점수 {scores}의 가중치"), "utf-8")
    assert bk.drift("toy") == []
    nb = bk.build_notebook("toy")
    (_, caption) = nb.cells[1].outputs
    assert caption["data"]["text/markdown"] == "**그림 3.1.** 점수 [1, 2]의 가중치; {braces} stay."
    said = nb.cells[2].metadata["user_expressions"][0]["result"]["data"]["text/plain"]
    assert said == "'그림 3.1'"
    # the prose blocks are untouched by the caption block after them
    assert [b.text for b in bk.parse_blocks(ko.read_text())][-1] == "끝."


def test_a_caption_value_that_names_a_figure_is_a_korean_figure(book):
    """``figures.show(..., "rows of {other}.", other=figures.ref("fig-b"))`` (chapter 10): the
    English output records "Figure 3.2", the Korean kernel computes 그림 3.2."""
    add_figure(book, "As in {other}.", {"other": "Figure 3.2"})
    bk.add_captions("toy")
    ko = book / "ko" / "toy.md"
    ko.write_text(ko.read_text().replace("As in {other}.", "{other}에서처럼."), "utf-8")
    (_, caption) = bk.build_notebook("toy").cells[1].outputs
    assert caption["data"]["text/markdown"] == "**그림 3.1.** 그림 3.2에서처럼."


def test_drift_names_a_changed_caption_and_accept_records_its_new_hash(book):
    add_figure(book, "Weights for {scores}.", {"scores": "[1, 2]"})
    bk.add_captions("toy")
    ko = book / "ko" / "toy.md"
    ko.write_text(ko.read_text().replace("Weights for {scores}.", "{scores}의 가중치."), "utf-8")
    old = bk.caption_hash("Weights for {scores}.")
    add_figure(book, "Weights for the scores {scores}.", {"scores": "[1, 2]"})
    (line,) = bk.drift("toy")
    assert f"<!-- figure fig-a en {old} -->" in line and f"--accept toy {old}" in line
    bk.accept("toy", old)
    assert bk.drift("toy") == []
    ko.write_text(ko.read_text().replace("{scores}의", "{score}의"), "utf-8")
    (line,) = bk.drift("toy")
    assert "has the values ['score'], the English ['scores']" in line


def test_a_korean_kernel_shows_the_translated_caption(tmp_path, monkeypatch):
    from attn_book import figures as fg

    (tmp_path / "ko").mkdir()
    (tmp_path / "ko" / "03_toy.md").write_text(
        "<!-- en 00000000 -->\n# 제목\n\n"
        "<!-- figure fig-a en 00000000 -->\n점수 {scores}의 가중치\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(fg, "TRANSLATIONS", tmp_path)
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.append((a, k)))
    figures = fg.Figures(chapter=3, language="ko")
    figures.show("figure", "fig-a", "Weights for {scores}.", scores="[1, 2]")
    (_, (caption,), kw) = (None, *shown[1])
    assert caption.data == "**그림 3.1.** 점수 [1, 2]의 가중치"
    assert kw["metadata"]["attn_figure"]["caption"] == "Weights for {scores}."
    assert figures.ref("fig-a") == "그림 3.1"
    english = fg.Figures(chapter=3, language="en")
    assert english.ref("fig-a") == "Figure 3.1"


# --- the committed Korean edition ------------------------------------------------------------


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_committed_korean_notebook_is_the_generated_one(name):
    committed = (bk.KO / f"{name}.ipynb").read_text(encoding="utf-8")
    assert committed == nbformat.writes(bk.build_notebook(name)) + "\n", (
        f"run tools/build_korean.py {name} (make sync does) and commit book/ko/{name}.ipynb"
    )


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_korean_code_cells_are_the_english_ones(name):
    english = nbformat.read(bk.BOOK / f"{name}.ipynb", as_version=4)
    korean = nbformat.read(bk.KO / f"{name}.ipynb", as_version=4)
    assert [c.cell_type for c in korean.cells] == [c.cell_type for c in english.cells]
    for en, ko in zip(english.cells, korean.cells, strict=True):
        if en.cell_type == "code":
            assert ko.source == en.source
            assert len(ko.outputs) == len(en.outputs)
        else:
            assert HANGUL.search(ko.source), ko.source[:80]


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_korean_notebook_calls_a_figure_a_그림(name):
    """Its prose, the prose's stored values and its outputs (the code may say Figure)."""
    notebook = nbformat.read(bk.KO / f"{name}.ipynb", as_version=4)
    said = []
    for cell in notebook.cells:
        said += [cell.source] if cell.cell_type == "markdown" else []
        said += [json.dumps(e["result"]) for e in cell.metadata.get("user_expressions", [])]
        said += [json.dumps(o.get("data", {})) for o in cell.get("outputs", [])]
    assert not [s for s in said if re.search(r"Figure \d+\.\d+", s)]


@pytest.mark.parametrize("name", bk.translated())
def test_no_korean_block_is_stale_missing_or_orphaned(name):
    assert bk.drift(name) == []


# --- the glossary is the one source of terms ------------------------------------------------


def glossary_terms():
    """{English term: its Korean forms}: each row's English terms (commas apart, the words in
    brackets left out) with every Korean form of the row ("밸류 (값)" gives 밸류 and 값)."""
    terms = {}
    for line in (bk.BOOK / "glossary.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith(("| English", "|--")):
            continue
        english, korean = line[2:].split(" | ")[:2]
        english = re.sub(r"\([^)]*\)|\$[^$]*\$", "", english)
        hangul = {f.strip() for f in re.split(r"[,()]", korean) if HANGUL.search(f)}
        for term in (t.strip() for t in english.split(",")):
            if len(term) >= 4 and hangul:
                terms.setdefault(term, set()).update(hangul)
    return terms


#: English words a glossary term shares with everyday prose ("means", the verb).
NOT_TERMS = {"mean"}
CODE_AND_MATHS = [  # in this order: listings, fence lines, display maths, inline maths and code
    re.compile(r"```python\n.*?```", re.S),
    re.compile(r"^`{3,}.*$", re.M),
    re.compile(r"\$\$.*?\$\$", re.S),
    re.compile(r"\$[^$]*\$|`[^`]*`|\]\([^)]*\)"),
]


def terms_used(english_text, terms):
    """The glossary terms an English passage uses in its prose (a plural too), the longest
    first: "gradient descent" is that term, not also "gradient"."""
    prose = english_text
    for pattern in CODE_AND_MATHS:
        prose = pattern.sub(" ", prose)
    used = []
    for term in sorted(terms, key=len, reverse=True):
        found = re.compile(rf"(?<![\w-]){re.escape(term)}(?:s|es)?(?![\w-])", re.I)
        if term not in NOT_TERMS and found.search(prose):
            used.append(term)
            prose = found.sub(" ", prose)
    return used


@pytest.mark.parametrize("name", bk.translated())
def test_a_korean_block_uses_the_glossary_form_of_each_english_term(name):
    passages = bk.english_passages(name)
    blocks = bk.parse_blocks((bk.KO / f"{name}.md").read_text(encoding="utf-8"))
    wrong = []
    terms = glossary_terms()
    for i, j in bk.align(passages, blocks):
        if i is None or j is None:
            continue
        korean_text = " ".join(blocks[j].text.split())  # a term may break across lines
        for term in terms_used(passages[i], terms):
            korean = terms[term]
            if not any(k in korean_text for k in korean):
                wrong.append(f"{blocks[j].hash}: {term!r} is {' or '.join(sorted(korean))}")
    assert wrong == []


# --- the exercises in Korean -----------------------------------------------------------------


fields = bk.fields  # the template's {names}, as the drift check reads them


MESSAGES = ROOT / "attn_book/exercises/messages"
KOREAN_CATALOGS = [MESSAGES / "ko.json", *sorted((MESSAGES / "ko").glob("*.json"))]


@pytest.mark.parametrize("path", KOREAN_CATALOGS, ids=lambda p: p.name)
def test_the_korean_catalog_has_the_english_ids_and_fields(path):
    english = json.loads((MESSAGES / "en.json").read_text("utf-8"))
    korean = json.loads(path.read_text("utf-8"))
    for section, texts in korean.items():
        pairs = (
            [((ex, k), v, english[section][ex][k]) for ex, d in texts.items() for k, v in d.items()]
            if section == "exercises"
            else [((k,), v, english[section][k]) for k, v in texts.items()]
        )
        for key, ko, en in pairs:
            assert fields(ko) == fields(en), (section, key)


def test_each_exercise_is_translated_in_one_place_only():
    seen = {}
    for path in KOREAN_CATALOGS:
        for ex in json.loads(path.read_text("utf-8")).get("exercises", {}):
            assert ex not in seen, f"{ex} is in {seen.get(ex)} and in {path.name}"
            seen[ex] = path.name


def test_every_translated_chapters_exercises_are_all_in_korean():
    """A chapter with a Korean page has every text of its exercises in Korean."""
    from attn_book.exercises.kinds import chapter_modules

    english = cat.catalog("en")["exercises"]
    korean = {}
    for path in KOREAN_CATALOGS:
        korean.update(json.loads(path.read_text("utf-8")).get("exercises", {}))
    pages = {p.stem[:2] for p in bk.KO.glob("[0-9][0-9]_*.md")}
    checked = 0
    for module in chapter_modules():
        number = module.__name__.rsplit(".", 1)[1][2:4]
        if number not in pages:
            continue
        for ex in module.EXERCISES:
            missing = set(english[ex.id]) - set(korean.get(ex.id, {}))
            assert not missing, f"{ex.id}: no Korean for {sorted(missing)}"
            checked += 1
    assert checked >= 6  # chapter 4's six at least


def test_a_text_the_korean_catalog_lacks_falls_back_to_english():
    english, korean = cat.catalog("en"), cat.catalog("ko")
    assert set(korean["exercises"]) == set(english["exercises"])
    assert set(korean["engine"]) == set(english["engine"])


def run_in(cwd, env=None):
    code = (
        "from attn_book.exercises import ch04_worked_example as c;"
        "print(c.weights_by_hand.check(...))"
    )
    environ = {k: v for k, v in os.environ.items() if k != "ATTN_BOOK_LANG"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_a_kernel_in_book_ko_answers_in_korean_and_elsewhere_in_english():
    assert run_in(bk.KO).startswith("… 아직 답이 없음")
    assert run_in(bk.BOOK).startswith("… Not answered yet")
    assert run_in(bk.BOOK, {"ATTN_BOOK_LANG": "ko"}).startswith("… 아직 답이 없음")
    assert run_in(bk.KO, {"ATTN_BOOK_LANG": "en"}).startswith("… Not answered yet")


def test_the_language_is_checked():
    with pytest.raises(ValueError, match="ATTN_BOOK_LANG must be one of"):
        cat.language(environ={"ATTN_BOOK_LANG": "kr"})


def test_the_korean_answer_for_the_worked_example_is_korean_and_correct():
    from attn_book.exercises import ch04_worked_example as ch4

    feedback = ch4.weights_by_hand.check(ch4.weights_by_hand.solution)
    assert feedback.ok
    assert cat.text("icon-correct", language="ko") == "✓ 정답"
    assert (
        cat.text("title", "ch4-weights-by-hand", language="ko") == "새 쿼리의 가중치 세 개, 손으로"
    )


# --- the engine's sentences, composed from pieces, in Korean ---------------------------------
# A wrong answer's message is built from catalog pieces (the places "항목 2", "1행 1열"; "is";
# the labels; the separators; the factors' words): the Korean pieces must make a Korean
# sentence, the same in a kernel (Python) and in the site's answer box (attn-answers.js).

COMPOSED = [  # (exercise, the answer as typed, the Korean verdict)
    ("v", "[1, -2, 3, 0.5, 4]", "숫자 6개를 기대했는데 5개를 받았다."),
    ("v", "[1, None, 3, 0.5, 4, -1]", "항목 2의 값이 None이다. 모든 항목이 유한한 수여야 한다."),
    ("v", "[1, -2, inf, 0.5, -inf, -1]",
     "항목 3, 항목 5의 값이 무한대이다. 모든 항목이 유한한 수여야 한다."),
    ("n", "nan", "답의 값이 NaN이다. 모든 항목이 유한한 수여야 한다."),
    ("v", "[1.4142, -2.8284, 4.2426, 0.7071, 5.6569, -1.4142]",
     "모든 수가 √2배 크다 — 곱셈이나 나눗셈을 한 번 더 한 단계를 찾아보라."),
    ("v", "[-1, 2, -3, -0.5, -4, 1]",
     "모든 수가 크기는 맞지만 부호가 반대다 — 곱셈이나 나눗셈을 한 번 더 한 단계를 찾아보라."),
    ("v", "[1.01, -2.5, 3, 0.5, 4.02, -1]",
     "항목 2의 값이 너무 작다. 항목 1, 5의 값이 아주 조금 어긋났다(반올림 실수인가?). "
     "나머지는 맞다."),
    ("m", "[[5, 2], [3, 0]]", "1행 1열의 값이 너무 크다. 2행 2열의 값이 너무 작다. 나머지는 맞다."),
    ("m", "[[1.004, 2], [3, 4]]",
     "가깝지만 1행 1열의 값이 허용 오차(0.002에 값의 0.1%를 더한 값) 안에 들지 않는다 — "
     "단계마다 소수 셋째 자리까지 두고 반올림은 마지막에만 하라."),
    ("w", "[[0.2, 0.3, 0.4], [0.4, 0.4, 0.1]]",
     "1행, 2행의 가중치 합이 1이 아니다 — 각 가중치는 자기 지수를 전체 지수의 합으로 나눈 "
     "값이다."),
]  # fmt: skip

KERNEL_VERDICTS = r"""
import ast, json, math, sys
import numpy as np
from attn_book.exercises import NumberExercise
from attn_book.exercises.site import site_spec

def weights(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

exercises = {
    "v": NumberExercise("t-vector", (np.array([1.0, -2.0, 3.0, 0.5, 4.0, -1.0]),), lambda x: x),
    "m": NumberExercise("t-matrix", (np.array([[1.0, 2.0], [3.0, 4.0]]),), lambda x: x),
    "n": NumberExercise("t-number", (), lambda: np.array(0.447)),
    "w": NumberExercise("t-rows", (np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0]]),), weights),
}
out = []
for name, typed in json.loads(sys.stdin.read()):
    tree = ast.parse(typed.replace("inf", "INF").replace("nan", "NAN"), mode="eval")
    value = eval(compile(tree, "typed", "eval"), {"INF": math.inf, "NAN": math.nan})
    out.append([site_spec(exercises[name]), exercises[name].check(value).message])
print(json.dumps(out, ensure_ascii=False))
"""

ANSWER_BOX = """
const A = require("./attn-answers.cjs");
const [cases, M] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const said = cases.map(([spec, typed]) => A.checkNumber(spec, typed, M).message);
process.stdout.write(JSON.stringify(said));
"""


def test_the_engines_composed_sentences_are_korean_in_the_kernel_and_on_the_site(tmp_path):
    typed = [[name, text] for name, text, _ in COMPOSED]
    env = {k: v for k, v in os.environ.items() if k != "ATTN_BOOK_LANG"}
    kernel = subprocess.run(
        [sys.executable, "-c", KERNEL_VERDICTS], input=json.dumps(typed), env={
            **env, "ATTN_BOOK_LANG": "ko"}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    verdicts = json.loads(kernel.stdout)
    for (name, text, want), (_, said) in zip(COMPOSED, verdicts, strict=True):
        print(f"{text} -> {said}")
        assert said == want, (name, text)
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: the answer box's Korean is checked with Node.js")
    shutil.copy(ROOT / "site/static/attn-answers.js", tmp_path / "attn-answers.cjs")
    (tmp_path / "run.cjs").write_text(ANSWER_BOX, encoding="utf-8")
    korean = cat.catalog("ko")
    cases = [[spec, text] for (spec, _), (_, text, _) in zip(verdicts, COMPOSED, strict=True)]
    box = subprocess.run(
        [node, "run.cjs"], input=json.dumps([cases, {**korean["engine"], **korean["site"]}]),
        cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert json.loads(box.stdout) == [want for _, _, want in COMPOSED]


def test_no_korean_engine_piece_ends_in_a_number_before_a_particle():
    """A particle after a number depends on how the number is read (2가, 3이): the Korean
    pieces put a noun or 이다 between a filled number and its particle."""
    engine = cat.catalog("ko")["engine"]
    after_field = re.compile(r"\{\w+\}\)?(가|이|는|은|를|을|와|과|로|으로)(?![\w])")
    risky = {k: v for k, v in engine.items() if after_field.search(v)}
    assert risky == {}


# --- the site's Korean edition (its pages are read by tests/browser/test_site_korean.py) -----


def test_the_site_modules_examples():
    import doctest

    sys.path.insert(0, str(ROOT / "site"))
    import attn_a11y
    import attn_answers
    import attn_downloads
    import attn_ko
    import attn_language
    import attn_repository

    modules = (attn_a11y, attn_answers, attn_downloads, attn_ko, attn_language, attn_repository)
    for module in modules:
        assert doctest.testmod(module).failed == 0, module.__name__


def test_korean_search_indexes_a_noun_without_its_particle():
    sys.path.insert(0, str(ROOT / "site"))
    from attn_ko import KoreanSearch

    words = KoreanSearch(options={}).split("나는 사과를 먹었다: 내적은 q·k")
    assert {"사과", "사과를", "내적", "먹었", "먹었다", "q", "k"} <= set(words)


def test_the_korean_site_lists_the_translated_pages_in_the_english_order():
    import build_book

    pages = build_book.korean_pages()
    assert pages[:1] == ["book/intro"] and "book/04_worked_example" in pages
    english = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert pages == sorted(pages, key=english.index)  # the English toc's order
    assert len(pages) == len(bk.translated())


def test_the_korean_toc_is_the_english_one_numbered_only_when_whole():
    import build_book

    english = {
        "format": "jb-book",
        "root": "book/intro",
        "parts": [
            {"caption": "Foundations", "numbered": True, "chapters": [{"file": "book/01_a"}]},
            {"caption": "Reference", "chapters": [{"file": "book/glossary"}]},
        ],
    }
    whole = build_book.korean_toc(english, {"book/intro", "book/01_a", "book/glossary"})
    assert whole["parts"] == [
        {"caption": "본문", "numbered": True, "chapters": [{"file": "book/01_a"}]},
        {"caption": "참고 자료", "chapters": [{"file": "book/glossary"}]},
    ]
    part = build_book.korean_toc(english, {"book/intro", "book/glossary"})
    assert part["parts"] == [{"caption": "참고 자료", "chapters": [{"file": "book/glossary"}]}]
    two = {
        **english,
        "parts": [
            {**english["parts"][0], "chapters": [{"file": "book/01_a"}, {"file": "book/02_b"}]}
        ],
    }
    assert build_book.korean_toc(two, {"book/intro", "book/02_b"})["parts"][0]["numbered"] is False
