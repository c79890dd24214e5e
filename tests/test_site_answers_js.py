"""The site's answer boxes (site/static/attn-answers.js) give the checker's verdicts, in node.

Every by-hand exercise the site can answer gets its listed mistakes, its solution and a few
malformed answers, typed as text into the JavaScript port and passed as values to
``Exercise.check``: status, message and diagnosis must be identical. Made-up exercises
reach the generic rules' other branches (a matrix of weights, an unnamed factor, entries
both far and just off), so each JS rule is held to its Python original, not only on the
book's examples. All cases go to one node process as JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from answer_inputs import MALFORMED, as_text, inputs_for, verdict

from attn_book.exercises import NumberExercise, all_exercises
from attn_book.exercises.catalog import catalog
from attn_book.exercises.diagnose import NUMBER_RULES
from attn_book.exercises.site import site_spec

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "site" / "static" / "attn-answers.js"
NODE = shutil.which("node") or "/usr/bin/node"
MESSAGES = {**catalog()["engine"], **catalog()["site"]}  # what specs_script gives the page

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
            wanted.append((ex.id, label, text, verdict(ex.check(value))))
    got = run_js(cases)
    diffs = [(i, lab, t, w, g) for (i, lab, t, w), g in zip(wanted, got, strict=True) if g != w]
    assert not diffs, "JS and Python disagree:\n" + "\n".join(map(repr, diffs))
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
]  # fmt: skip

MADE_UP_ANSWERS = {
    "t-rows": [[[0.2, 0.3, 0.5], [0.4, 0.4, 0.1]], [[0.09, 0.245, 0.665], [0.5, 0.5, 0.0]],
               [[0.666, 0.245, 0.09], [0.422, 0.422, 0.155]], [[0.091, 0.245, 0.666]]],
    "t-vector": [[3.0, -6.0, 9.0, 1.5, 12.0, -3.0], [1.0, -2.0, 3.0, 0.5, 4.0],
                 [1.001, -2.0, 3.0, 0.5, 4.0, -1.0], [1.01, -2.5, 3.0, 0.5, 4.0, -1.0],
                 [1.01, -1.5, 3.0, 0.5, 4.02, -1.0], [2.0, -4.0, 6.0, 1.0, 8.0, -2.0],
                 [-1.0, 2.0, -3.0, -0.5, -4.0, 1.0], [4.0, 3.0, 1.0, 0.5, -1.0, -2.0],
                 [1.0, -2.0, 3.0, 0.5, 4.0, -1.0, 0.0], [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]],
    "t-number": [0.4475, 0.45, 0.6, 0.1, [0.447, 0.5], [[0.447]]],
    "t-matrix": [[[1.0, 2.0], [3.0, 4.1]], [[1.0, 2.0]], [[2.0, 4.0], [6.0, 8.0]],
                 [[1.0, 3.0], [2.0, 4.0]], [[1.004, 2.0], [3.0, 4.0]]],
}  # fmt: skip


def test_generic_rules_match_python_on_made_up_exercises(run_js):
    answers = {
        ex.id: [(a, as_text(a), f"answer {a}") for a in [ex.expected(), *MADE_UP_ANSWERS[ex.id]]]
        + [(value, text, f"malformed {text!r}") for value, text in MALFORMED]
        for ex in MADE_UP
    }
    assert compare(run_js, MADE_UP, answers) > 40


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
            wanted.append(verdict(ex.check(... if option is None else option)))
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
    assert "Python" in spec["why"] and "custom" not in spec["why"]  # the reader's words


def test_specs_are_plain_json():
    from attn_book.exercises.site import specs_script

    text = specs_script()
    assert text.startswith("window.ATTN_EXERCISES = ") and text.endswith(";\n")
    data = json.loads(text.removeprefix("window.ATTN_EXERCISES = ").removesuffix(";\n"))
    assert set(data["exercises"]) == {ex.id for ex in all_exercises()}
