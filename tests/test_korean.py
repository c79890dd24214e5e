"""The Korean edition as a reader meets it (its machinery: tests/test_korean_catalogs.py).

- a glossary term of an English passage appears in its Korean translation in the glossary's form;
- the exercises answer in Korean in a kernel started in book/ko, every exercise of every chapter
  is in Korean, and the engine's composed sentences are Korean in the kernel and on the site;
- the Korean site's modules, search and table of contents.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK, KO = ROOT / "book", ROOT / "book" / "ko"
sys.path.insert(0, str(ROOT / "tools"))

from attn_book import i18n  # noqa: E402
from attn_book.exercises import catalog as cat  # noqa: E402

HANGUL = re.compile(r"[\uac00-\ud7a3]")
KOREAN_PO = sorted((i18n.LOCALE / "ko" / "LC_MESSAGES").glob("*.po"))


# --- the glossary is the one source of terms ------------------------------------------------


def glossary_terms():
    """{English term: its Korean forms}: each row's English terms (commas apart, the words in
    brackets left out) with every Korean form of the row ("밸류 (값)" gives 밸류 and 값), and
    the term itself where the Korean column writes it as it is ("부동소수점 연산 (FLOPs)")."""
    terms = {}
    for line in (BOOK / "glossary.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith(("| English", "|--")):
            continue
        english, korean = line[2:].split(" | ")[:2]
        english = re.sub(r"\([^)]*\)|\$[^$]*\$", "", english)
        fragments = {f.strip() for f in re.split(r"[,()]", korean)}
        hangul = {f for f in fragments if HANGUL.search(f)}
        for term in (t.strip() for t in english.split(",")):
            if len(term) >= 4 and hangul:
                # a term the Korean column keeps in Latin letters ("FLOPs", "Adam") is a form too
                terms.setdefault(term, set()).update(hangul | ({term} & fragments))
    return terms


#: English words a glossary term shares with everyday prose ("means", the verb).
NOT_TERMS = {"mean"}
CODE_AND_MATHS = [  # in this order: listings, fence lines, display maths, inline maths and code
    re.compile(r"```(?:python|\{code-block\} python)\n.*?```", re.S),
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


def passages(name):
    """``[(English, Korean)]`` of page ``name``: each Markdown cell of a notebook beside its
    translation, or each section of a Markdown page (from one heading to the next)."""
    import nbformat

    if (BOOK / f"{name}.ipynb").is_file():
        english, korean = (
            nbformat.read(p / f"{name}.ipynb", as_version=4).cells for p in (BOOK, KO)
        )
        return [
            (e.source, k.source)
            for e, k in zip(english, korean, strict=True)
            if e.cell_type == "markdown"
        ]
    heading = re.compile(r"^(?=#{1,6} )", re.MULTILINE)
    english, korean = (heading.split((p / f"{name}.md").read_text("utf-8")) for p in (BOOK, KO))
    return list(zip(english, korean, strict=True))


@pytest.mark.parametrize(  # not the checkers' words, nor the glossary itself
    "path",
    [p for p in KOREAN_PO if p.stem not in ("messages", "glossary", "figures", "code")],
    ids=lambda p: p.stem,
)
def test_a_korean_passage_uses_the_glossary_form_of_each_english_term(path):
    wrong = []
    terms = glossary_terms()
    for english, korean in passages(path.stem):
        korean_text = " ".join(korean.split())  # a term may break across lines
        for term in terms_used(english, terms):
            if not any(k in korean_text for k in terms[term]):
                wrong.append(f"{english[:40]!r}: {term!r} is {' or '.join(sorted(terms[term]))}")
    assert wrong == []


@pytest.mark.parametrize(
    "path",
    sorted((i18n.LOCALE / "ko" / "LC_MESSAGES" / "comments").glob("*.po")),
    ids=lambda p: p.stem,
)
def test_a_korean_code_comment_uses_the_glossary_form_of_each_english_term(path):
    """As for prose, a code comment's terms (its code names aside: ``softmax(x)`` is a call)."""
    import i18n as tool  # tools/i18n.py

    wrong = []
    terms = glossary_terms()
    for entry in i18n.po_entries(path.read_text(encoding="utf-8")):
        korean_text = " ".join(entry["string"].split())
        for term in terms_used(tool.NOT_WORDS.sub(" ", entry["id"]), terms) if korean_text else []:
            if not any(k in korean_text for k in terms[term]):
                wrong.append(
                    f"{entry['id'][:40]!r}: {term!r} is {' or '.join(sorted(terms[term]))}"
                )
    assert wrong == []


def test_every_chapters_exercises_are_all_in_korean():
    """Every text of every exercise has a current Korean translation (keyed, in its chapter's
    catalog): none falls back to English."""
    english, korean = cat.catalog("en")["exercises"], cat.catalog("ko")["exercises"]
    assert set(korean) == set(english)
    missing = [
        f"{ex}/{key}"
        for ex, texts in english.items()
        for key, text in texts.items()
        if korean[ex][key] == text and HANGUL.search(text) is None
    ]
    assert missing == []
    assert len(english) >= 77


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
    assert run_in(KO).startswith("… 아직 답이 없음")
    assert run_in(BOOK).startswith("… Not answered yet")
    assert run_in(BOOK, {"ATTN_BOOK_LANG": "ko"}).startswith("… 아직 답이 없음")
    assert run_in(KO, {"ATTN_BOOK_LANG": "en"}).startswith("… Not answered yet")


def test_the_language_is_checked():
    with pytest.raises(ValueError, match="ATTN_BOOK_LANG must be one of"):
        cat.language(environ={"ATTN_BOOK_LANG": "kr"})


def test_the_korean_answer_for_the_worked_example_is_korean_and_correct():
    from attn_book.exercises import ch04_worked_example as ch4

    feedback = ch4.weights_by_hand.check(ch4.weights_by_hand.solution)
    assert feedback.ok
    assert cat.text("icon-correct", language="ko") == "✓ 정답"
    assert (
        cat.text("title", "ch4-weights-by-hand", language="ko")
        == "손으로 구하는 새 쿼리의 가중치 세 개"
    )


# --- the engine's sentences, composed from pieces, in Korean ---------------------------------
# A wrong answer's message is built from catalog pieces (the places "항목 2", "1행 1열"; "is";
# the labels; the separators; the factors' words): the Korean pieces must make a Korean
# sentence, the same in a kernel (Python) and in the site's answer box (attn-answers.js).

COMPOSED = [  # (exercise, the answer as typed, the Korean verdict)
    ("v", "[1, -2, 3, 0.5, 4]", "숫자 6개여야 하는데 5개를 받았다."),
    ("v", "[1, None, 3, 0.5, 4, -1]", "항목 2의 값이 None이다. 모든 항목이 유한한 수여야 한다."),
    ("v", "[1, -2, inf, 0.5, -inf, -1]",
     "항목 3, 항목 5의 값이 무한대이다. 모든 항목이 유한한 수여야 한다."),
    ("n", "nan", "답의 값이 NaN이다. 모든 항목이 유한한 수여야 한다."),
    ("v", "[1.4142, -2.8284, 4.2426, 0.7071, 5.6569, -1.4142]",
     "모든 수가 √2배 크다 — 곱셈이나 나눗셈을 한 번 더 한 단계를 찾아보라."),
    ("v", "[-1, 2, -3, -0.5, -4, 1]",
     "모든 수의 크기는 맞는데 부호가 반대다. "
     "빼는 순서를 거꾸로 했거나 빼기 기호를 잃어버린 곳을 찾아보라."),
    ("v", "[1.002, -2.5, 3, 0.5, 4.003, -1]",
     "항목 1, 5의 값이 너무 크다. 항목 2의 값이 너무 작다. "
     "나머지는 맞다."),
    ("m", "[[5, 2], [3, 0]]", "1행 1열의 값이 너무 크다. 2행 2열의 값이 너무 작다. 나머지는 맞다."),
    ("m", "[[1.002, 2], [3, 4]]",
     "가깝지만 1행 1열의 값이 허용 오차(0.0005) 안에 들지 않는다 — 중간 단계에서는 답이 묻는 "
     "것보다 소수 한 자리를 더 두고, 반올림은 마지막에만 하라."),
    ("m", "[[1.01, 2], [3, 4]]", "1행 1열의 값이 너무 크다. 나머지는 맞다."),
    ("c", "42.5", "개수나 크기는 정수인데 답은 정수가 아니다. "
     "반올림하지 말고 다시 세어 보라. 소수가 나왔다면 어느 단계가 틀린 것이다."),
    ("c", "43", "답이 너무 크다 — 한 단계씩 다시 세어 보라."),
    ("s", "[5, 9.5, 5, 12]", "개수나 크기는 정수인데 항목 2의 값이 정수가 아니다. "
     "반올림하지 말고 다시 세어 보라. 소수가 나왔다면 어느 단계가 틀린 것이다."),
    ("w", "[[0.2, 0.3, 0.4], [0.4, 0.4, 0.1]]",
     "1행, 2행의 가중치 합이 1이 아니다 — 각 가중치는 자기 지숫값을 전체 지숫값의 합으로 나눈 "
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
    "c": NumberExercise("t-count", (), lambda: np.array(42.0), integer=True),
    "s": NumberExercise("t-shapes", (), lambda: np.array([5.0, 9.0, 5.0, 12.0]), integer=True),
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
    assert len(pages) == len(list(KO.glob("*.ipynb"))) + len(list(KO.glob("*.md"))) - 1  # README


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
