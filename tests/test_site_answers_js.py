"""The site's answer boxes (site/static/attn-answers.js) give the checker's verdicts, in node.

Every by-hand exercise the site can answer gets its listed mistakes, its solution and a few
malformed answers, typed as text into the JavaScript port and passed as values to
``Exercise.check``: status, message and diagnosis must be identical to the checker's, in the
site's words where the checker speaks of the notebook (``site.site_verdict``). Made-up exercises
reach the generic rules' other branches (a matrix of weights, an unnamed factor, entries
both far and just off), so each JS rule is held to its Python original, not only on the
book's examples. All cases go to one node process as JSON.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from answer_inputs import MALFORMED, as_text, inputs_for, verdict

from attn_book.exercises import NumberExercise, all_exercises
from attn_book.exercises.catalog import catalog
from attn_book.exercises.diagnose import NUMBER_RULES
from attn_book.exercises.site import site_spec, site_verdict, specs_script

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "site" / "static" / "attn-answers.js"
NODE = shutil.which("node") or "/usr/bin/node"
PREFIX = "window.ATTN_EXERCISES = "
MESSAGES = json.loads(specs_script({}).removeprefix(PREFIX).removesuffix(";\n"))["messages"]

RUNNER = """
const A = require("./attn-answers.cjs");
let s = "";
process.stdin.on("data", (d) => (s += d));
process.stdin.on("end", () => {
  const out = JSON.parse(s).map(([fn, args]) => {
    try {
      const v = A[fn](...args);
      return { value: v === undefined ? "undefined" : v };
    } catch (e) {
      return { error: String(e.stack) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
"""


@pytest.fixture(scope="module")
def run_js(tmp_path_factory):
    if not Path(NODE).exists():
        pytest.skip(f"node not found ({NODE}); the answer-box tests need Node.js")
    folder = tmp_path_factory.mktemp("answers")
    shutil.copy(JS, folder / "attn-answers.cjs")  # .cjs: node reads module.exports
    (folder / "run.cjs").write_text(RUNNER, encoding="utf-8")

    def run(cases):
        proc = subprocess.run(
            [NODE, "run.cjs"], input=json.dumps(cases), capture_output=True, text=True,
            cwd=folder, timeout=60, check=True,
        )  # fmt: skip
        results = json.loads(proc.stdout)
        pairs = zip(cases, results, strict=True)
        errors = [(c[1][1:2], r["error"]) for c, r in pairs if "error" in r]
        assert not errors, f"JS raised: {errors}"
        return [r["value"] for r in results]

    return run


def compare(run_js, exercises, answers=None):
    cases, wanted = [], []
    for ex in exercises:
        spec = site_spec(ex)
        assert spec["kind"] == "number", (ex.id, spec.get("why"))
        rows = inputs_for(ex) if answers is None else answers[ex.id]
        for value, text, label in rows:
            cases.append(["checkNumber", [spec, text, MESSAGES]])
            wanted.append((ex.id, label, text, verdict(site_verdict(ex, value))))
    got = run_js(cases)
    diffs = [(i, lab, t, w, g) for (i, lab, t, w), g in zip(wanted, got, strict=True) if g != w]
    assert not diffs, "JS and Python disagree:\n" + "\n".join(map(repr, diffs))
    said = [g["message"] for g in got]
    assert not [m for m in said if not_the_sites_words(m)], "the box spoke of the notebook"
    return len(cases)


def test_book_number_exercises_match_python(run_js):
    answerable = [ex for ex in all_exercises() if site_spec(ex)["kind"] == "number"]
    assert len(answerable) >= 17
    assert compare(run_js, answerable) > 200


def _weights(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


MADE_UP = [
    NumberExercise("t-rows", (np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0]]),), _weights),
    NumberExercise("t-vector", (np.array([1.0, -2.0, 3.0, 0.5, 4.0, -1.0]),), lambda x: x),
    NumberExercise("t-number", (), lambda: np.array(0.447)),
    NumberExercise("t-matrix", (np.array([[1.0, 2.0], [3.0, 4.0]]),), lambda m: m),
    NumberExercise("t-count", (), lambda: np.array(42.0), integer=True),
    NumberExercise("t-shapes", (), lambda: np.array([5.0, 9.0, 5.0, 12.0]), integer=True),
    NumberExercise("t-band", (), lambda: np.array([1.14116, 1.43141]), band=1.5),
    NumberExercise("t-two", (), lambda: np.array(1.234), decimals=2),
]  # fmt: skip

MADE_UP_ANSWERS = {
    "t-rows": [[[0.2, 0.3, 0.5], [0.4, 0.4, 0.1]], [[0.09, 0.245, 0.665], [0.5, 0.5, 0.0]],
               [[0.666, 0.245, 0.09], [0.422, 0.422, 0.155]], [[0.091, 0.245, 0.666]]],
    "t-vector": [[3.0, -6.0, 9.0, 1.5, 12.0, -3.0], [1.0, -2.0, 3.0, 0.5, 4.0],
                 [1.001, -2.0, 3.0, 0.5, 4.0, -1.0], [1.01, -2.5, 3.0, 0.5, 4.0, -1.0],
                 [1.01, -1.5, 3.0, 0.5, 4.02, -1.0], [2.0, -4.0, 6.0, 1.0, 8.0, -2.0],
                 [-1.0, 2.0, -3.0, -0.5, -4.0, 1.0], [4.0, 3.0, 1.0, 0.5, -1.0, -2.0],
                 [1.0, -2.0, 3.0, 0.5, 4.0, -1.0, 0.0], [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]],
    "t-number": [0.4475, 0.45, 0.6, 0.1, [0.447, 0.5], [[0.447]], 0.449, 0.445, 0.448, 0.446,
                 0.4, 0.44, 0.451, 0.443],
    "t-count": [42.04, 42.5, 41.999, 43.0, 41.0, 84.0, [42.0, 1.0]],
    "t-shapes": [[5.0, 9.0, 5.0, 12.01], [5.0, 9.5, 5.0, 12.01], [5.0, 9.0, 5.0, 13.0],
                 [9.0, 5.0, 5.0, 12.0], [5.0, 9.0, 5.0], [10.0, 18.0, 10.0, 24.0]],
    "t-band": [[1.140, 1.430], [1.142, 1.432], [1.143, 1.431], [1.139, 1.431], [1.14, 1.43],
               [1.145, 1.431], [1.2, 1.5]],
    "t-two": [1.23, 1.24, 1.2, 1.22, 1.25, 1.3],
    "t-matrix": [[[1.0, 2.0], [3.0, 4.1]], [[1.0, 2.0]], [[2.0, 4.0], [6.0, 8.0]],
                 [[1.0, 3.0], [2.0, 4.0]], [[1.004, 2.0], [3.0, 4.0]]],
}  # fmt: skip


def test_generic_rules_match_python_on_made_up_exercises(run_js):
    answers = {
        ex.id: [(a, as_text(a), f"answer {a}") for a in [ex.expected(), *MADE_UP_ANSWERS[ex.id]]]
        + [(value, text, f"malformed {text!r}") for value, text in MALFORMED]
        for ex in MADE_UP
    }
    assert compare(run_js, MADE_UP, answers) > 100


def test_slots_numbered_from_0_are_named_from_0_in_both_languages(run_js):
    """Chapter 11's ring buffer numbers its slots from 0 ("slot 0 first"): a slot that is off is
    named by that number, here and in the box alike."""
    from attn_book.exercises import ch11_modern_attention as ch11

    ex = ch11.ring_slots
    rows = [([8, 9, 11, 7], "entry 2 is"), ([8, 9, 10, 6], "entry 3 is"),
            ([9, 9, 11, 7], "entries 0 and 2 are")]  # fmt: skip
    cases = [["checkNumber", [site_spec(ex), as_text(a), MESSAGES]] for a, _ in rows]
    for (answer, words), js in zip(rows, run_js(cases), strict=True):
        python = ex.check(answer)
        assert python.diagnosis == js["diagnosis"] == "other", (answer, python, js)
        assert python.message == js["message"] and words in js["message"], (python, js)
    made = {ex.id: ex for ex in MADE_UP}
    assert "entry 1 is" in made["t-vector"].check([1.5, -2.0, 3.0, 0.5, 4.0, -1.0]).message


def test_numbers_are_judged_as_the_question_asks_in_both_languages(run_js):
    """The cases of issue 42, item 3, by their diagnoses, here and in the box alike."""
    made = {ex.id: ex for ex in MADE_UP}
    expect = [
        ("t-count", 42.04, "not-whole"), ("t-count", 42.5, "not-whole"),
        ("t-shapes", [5.0, 9.0, 5.0, 12.01], "not-whole"), ("t-count", 42.0, None),
        ("t-count", 43.0, "other"), ("t-number", 0.449, "rounding"),
        ("t-number", 0.445, "rounding"), ("t-number", 0.45, "fewer-decimals"),
        ("t-number", 0.447, None), ("t-two", 1.23, None), ("t-band", [1.142, 1.432], None),
        ("t-band", [1.143, 1.431], "rounding"), ("t-number", 0.4, "fewer-decimals"),
        ("t-number", 0.5, "other"),
    ]  # fmt: skip
    cases = [["checkNumber", [site_spec(made[i]), as_text(v), MESSAGES]] for i, v, _ in expect]
    for (i, value, diagnosis), js in zip(expect, run_js(cases), strict=True):
        python = made[i].check(value)
        assert python.diagnosis == js["diagnosis"] == diagnosis, (i, value, python, js)
        assert python.message == js["message"]
        if made[i].integer:
            assert "decimals at every" not in js["message"] and "three" not in js["message"]
            assert "rounding" not in js["message"]


@pytest.mark.parametrize(
    "typed, size",
    [("0,447", 1), (" 0,447 ", 1), ("0,401; 0,198; 0,401", 3), ("[0,401, 0,198, 0,401]", 3),
     ("0,401, 0,198, 0,401", 3), ("[0,5; 0,5]", 2)],
)  # fmt: skip
def test_a_decimal_comma_gets_a_hint_not_a_count(run_js, typed, size):
    ex = MADE_UP[2] if size == 1 else NumberExercise("t", (), lambda: np.full(size, 1 / size))
    [said] = run_js([["checkNumber", [site_spec(ex), typed, MESSAGES]]])
    assert (said["status"], said["diagnosis"]) == ("wrong", "decimal-comma"), said
    assert said["message"] == MESSAGES["decimal-comma"] and "0.25" in said["message"]
    assert "expected" not in said["message"]


def test_commas_between_numbers_are_not_taken_for_decimals(run_js):
    ex = NumberExercise("t", (), lambda: np.array([1.0, 2.0]))
    said = run_js(
        [["checkNumber", [site_spec(ex), t, MESSAGES]] for t in ("[1,2]", "1,2", "[1,3]")]
    )
    assert [s["diagnosis"] for s in said] == [None, None, "other"]


@pytest.mark.parametrize(
    "text, parts",
    [("plain", [["text", "plain"]]),
     ("divides the *exponentials* by `np.sum`, **not** x * y",
      [["text", "divides the "], ["em", "exponentials"], ["text", " by "], ["code", "np.sum"],
       ["text", ", "], ["strong", "not"], ["text", " x * y"]])],
)  # fmt: skip
def test_the_box_renders_a_messages_markdown(run_js, text, parts):
    assert run_js([["inlineParts", [text]]]) == [parts]


# --- The site's language: nothing of the notebook, no raw Markdown, in English and Korean -----

NOTEBOOK_WORDS = {
    "en": re.compile(
        r"\bcells?\b|\bkernels?\b|\b(re)?run (the|it|this|your|that|again)\b|\bruns your\b"
        r"|\bexecut|\.\.\.|\b(list|tuple|float|int|str|dict|ndarray|NoneType)\b|\barray\b"
        r"|\bPython\b|NotImplementedError|\breturn\b",
        re.IGNORECASE,
    ),
    "ko": re.compile(
        r"셀(?!프)|커널|실행|\.\.\.|목록|리스트|튜플|파이썬|\b(list|tuple|float|int|str)\b"
    ),
}


def not_the_sites_words(message, language="en"):
    """The words of ``message`` that speak of the notebook, or Markdown left raw in it: a mark
    the box cannot render (an unpaired backtick or asterisk pair, a heading, a link)."""
    message = re.sub(r"\{\w+\}", "", message)  # a template's fields are filled in
    found = [m.group(0) for m in NOTEBOOK_WORDS[language].finditer(message)]
    rest = re.sub(r"`[^`]+`|\*\*\S(?:[^*]*\S)?\*\*|\*\S(?:[^*]*\S)?\*", "", message)
    found += re.findall(r"`|\*\*|\*\S|\S\*(?!\s*\d)|^#|\]\(|\$", rest)
    return found


def _site_texts(language):
    """Every text the page of ``language`` holds for the boxes: the catalog's texts it is
    given and every string of every exercise's spec (messages, titles, why, verdicts)."""
    env = {k: v for k, v in os.environ.items() if k != "ATTN_BOOK_LANG"}
    code = "from attn_book.exercises.site import specs_script; print(specs_script(), end='')"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**env, "ATTN_BOOK_LANG": language},
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    data = json.loads(out.removeprefix(PREFIX).removesuffix(";\n"))

    def strings(x, where):
        if isinstance(x, str):
            yield where, x
        elif isinstance(x, dict):
            for k, v in x.items():
                if k not in {"id", "kind", "name", "rule", "exercise", "diagnosis", "status"}:
                    yield from strings(v, f"{where}/{k}")
        elif isinstance(x, list):
            for v in x:
                yield from strings(v, where)

    return list(strings(data, ""))


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_boxes_words_are_the_sites(language):
    """Issue 42, item 5: no cells, kernels, running, ``...``, Python types or raw Markdown in
    anything the box can say, in either language."""
    texts = _site_texts(language)
    assert len(texts) > 300
    bad = [(where, text, not_the_sites_words(text, language)) for where, text in texts]
    assert [b for b in bad if b[2]] == []


def test_the_scan_finds_the_notebooks_words():
    for said in (
        "replace the `...` with your answer and run the cell again.",
        "your answer should be a number or a list of numbers, not a str.",
        "This exercise needs a Python kernel",
        "divides the *exponentials by",
    ):
        assert not_the_sites_words(said), said
    assert not_the_sites_words("`...`를 답으로 바꾸고 셀을 다시 실행하라.", "ko")
    for fine in (
        "the running max moved",
        "softmax divides the *exponentials* by their sum",
        "float16 and float32 scores",
        "셀프 어텐션의 가중치",
        "2 × 3 * 4",
    ):
        assert not not_the_sites_words(fine, "ko" if "셀" in fine else "en"), fine


def test_the_javascript_rules_are_the_python_rules_and_each_is_used(run_js):
    """The fixed generic set, by the same names in both languages, each used by the book or
    reached by the made-up exercises."""
    assert run_js([["ruleNames", []]]) == [list(NUMBER_RULES)]
    used = set()
    for ex in [*all_exercises(), *MADE_UP]:
        spec = site_spec(ex)
        if spec["kind"] == "number":
            used |= {d["rule"] for d in spec["diagnoses"] if "rule" in d}
    assert used == set(NUMBER_RULES)


def test_choice_exercises_answer_as_python(run_js):
    cases, wanted = [], []
    for ex in all_exercises():
        spec = site_spec(ex)
        if spec["kind"] != "choice":
            continue
        for option in [*ex.options, None]:
            cases.append(["checkChoice", [spec, option]])
            wanted.append(verdict(site_verdict(ex, ... if option is None else option)))
    assert len(cases) >= 7 * 3
    assert run_js(cases) == wanted


@pytest.mark.parametrize(
    "text, value",
    [("0.5", 0.5), ("[1, 2]", [1, 2]), ("1, 2", [1, 2]), ("(1, 2,)", [1, 2]),
     ("[[1, -2.5e-3], [3, .5]]", [[1, -0.0025], [3, 0.5]]), ("None", None),
     ("[1 2]", "undefined"), ("x", "undefined"), ("1e", "undefined"), ("[1,,2]", "undefined")],
)  # fmt: skip
def test_parse_literal(run_js, text, value):
    assert run_js([["parseLiteral", [text]]]) == [value]


def test_three_significant_digits_as_python(run_js):
    xs = [2.23606797, 5.0, 12.3456, 999.7, 1234.5, 0.000123456, 0.1, 1e-7, 3.14159e12, 100.0]
    assert run_js([["pyG3", [x]] for x in xs]) == [f"{x:.3g}" for x in xs]


def test_an_unported_diagnosis_leaves_the_exercise_to_the_kernel():
    from attn_book.exercises import Diagnosis

    ported = NumberExercise("t-ported", (), lambda: np.array([1.0, 2.0]))
    custom = Diagnosis("custom", lambda trials: False)
    unported = NumberExercise("t-unported", (), ported.reference, diagnoses=[custom])
    assert site_spec(ported)["kind"] == "number"
    spec = site_spec(unported)
    assert spec["kind"] == "kernel" and "custom" in spec["missing"]
    assert spec["why"] == catalog()["site"]["why-other"] and "custom" not in spec["why"]


def test_specs_are_plain_json():
    from attn_book.exercises.site import specs_script

    text = specs_script()
    assert text.startswith("window.ATTN_EXERCISES = ") and text.endswith(";\n")
    data = json.loads(text.removeprefix("window.ATTN_EXERCISES = ").removesuffix(";\n"))
    assert set(data["exercises"]) == {ex.id for ex in all_exercises()}
