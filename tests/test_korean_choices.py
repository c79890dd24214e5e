"""A predict-then-run exercise whose options are words: on the Korean page the reader may answer
with the catalog's Korean words for an option (``<id>/option-<option>``), in the notebook's
checker and in the site's answer box alike, and a wrong Korean option gets that option's own
diagnosis. Every choice exercise whose options are English words has them (:data:`CHOICES`);
those whose options are letters, digits, a formula or a word's spelling keep them (:data:`KEPT`)."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attn_book.exercises import catalog as cat
from attn_book.exercises.kinds import ChoiceExercise

ROOT = Path(__file__).resolve().parents[1]

#: ``{(module, name): (the right option, a wrong one)}``: the answers as the chapters argue them
#: (chapter 1: halving a negative score raises it; 4: a new key joins w₁'s denominator; 5: the
#: weights are symmetric only when the rows' sums are; 6: RoPE's second term flips sign; 7: −10⁴
#: fits in float16, so the row is uniform; 8: dQ and dK at the large d_k; 13: the later layers).
CHOICES = {
    ("ch01_dot_product", "long_key_away"): ("up", "same"),
    ("ch04_worked_example", "add_a_word"): ("down", "up"),
    ("ch05_projections", "symmetric_weights"): ("sometimes", "never"),
    ("ch06_positions", "rope_before_after"): ("different", "same"),
    ("ch07_heads_and_masks", "float16_fill"): ("uniform", "zeros"),
    ("ch08_learning", "which_vanishes"): ("dQ and dK, at d_k = 256", "dQ and dK, at d_k = 4"),
    ("ch13_real_model", "sink_where"): ("later layers", "first layers"),
}
#: Choice exercises whose options are not English words: letters, digits, a formula, a spelling.
KEPT = {"ch1-which-key-wins", "ch9-time-slope", "ch10-no-cache-growth", "ch13-word-tokens"}
#: Words that may stay as they are written, a number or a value's name (chapter 7's "NaN" has no
#: Korean entry: the option itself is its words).
NOT_WORDS = {"0", "NaN"}
HANGUL = re.compile("[\uac00-\ud7a3]")
PARAMS = pytest.mark.parametrize("where", list(CHOICES), ids=lambda w: w[1])


def exercise(where):
    module, name = where
    return getattr(importlib.import_module(f"attn_book.exercises.{module}"), name)


def own_words(where):
    """The exercise's Korean catalog entries."""
    return cat.catalog("ko")["exercises"][exercise(where).id]


def korean_words(where):
    """The Korean words of the right and the wrong option, read from the catalog itself."""
    right, wrong = CHOICES[where]
    own = own_words(where)
    return own[f"option-{right}"], own[f"option-{wrong}"]


def test_every_choice_exercise_of_english_words_is_covered():
    found = set()
    for path in sorted((ROOT / "attn_book/exercises").glob("ch[0-9][0-9]_*.py")):
        module = importlib.import_module(f"attn_book.exercises.{path.stem}")
        found |= {
            (path.stem, name)
            for name, value in vars(module).items()
            if isinstance(value, ChoiceExercise) and value.id not in KEPT
        }
    assert found == set(CHOICES)


@PARAMS
def test_every_option_has_korean_words(where):
    own, options = own_words(where), exercise(where).options
    missing = [o for o in options if f"option-{o}" not in own and o not in NOT_WORDS]
    assert not missing, f"no Korean words for {missing}"
    words = [own.get(f"option-{o}", o) for o in options]
    assert len({w.casefold() for w in words}) == len(words)  # each its own words
    for option, w in zip(options, words, strict=True):
        assert HANGUL.search(w) or w in NOT_WORDS, (option, w)
        if w not in NOT_WORDS and not HANGUL.search(option):
            assert w != option


KERNEL = r"""
import json, sys
import importlib
from attn_book.exercises.site import site_spec
module, name, typed_all = json.loads(sys.stdin.read())
ex = getattr(importlib.import_module(f"attn_book.exercises.{module}"), name)
out = {"spec": site_spec(ex), "verdicts": {}}
for typed in typed_all:
    f = ex.check(typed)
    out["verdicts"][typed] = [f.status, f.diagnosis, f.message]
print(json.dumps(out, ensure_ascii=False))
"""

BOX = """
const A = require("./attn-answers.cjs");
const [spec, typed] = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(typed.map((t) => A.checkChoice(spec, t))));
"""


def run_korean_kernel(where, typed):
    env = {k: v for k, v in os.environ.items() if k != "ATTN_BOOK_LANG"}
    proc = subprocess.run(
        [sys.executable, "-c", KERNEL], input=json.dumps([*where, typed], ensure_ascii=False),
        env={**env, "ATTN_BOOK_LANG": "ko"}, capture_output=True, text=True, check=True,
        cwd=ROOT,
    )  # fmt: skip
    return json.loads(proc.stdout)


@PARAMS
def test_the_checker_accepts_the_korean_option_and_refuses_a_wrong_one(where):
    right, wrong = korean_words(where)
    right_en, wrong_en = CHOICES[where]
    made_up = "아마도 그럴걸"
    typed = [right, f"  {right.upper()} ", wrong, right_en, made_up]
    verdicts = run_korean_kernel(where, typed)["verdicts"]
    assert verdicts[right][:2] == ["correct", None]
    assert verdicts[f"  {right.upper()} "][:2] == ["correct", None]  # case and spaces
    assert verdicts[right_en][:2] == ["correct", None]  # the code value still counts
    status, diagnosis, message = verdicts[wrong]
    assert (status, diagnosis) == ("wrong", f"chose-{wrong_en}")
    assert message == own_words(where)[f"chose-{wrong_en}"]
    status, diagnosis, message = verdicts[made_up]
    assert (status, diagnosis) == ("wrong", "not-an-option")
    assert right in message and wrong in message  # it lists the options in Korean


@PARAMS
def test_the_answer_box_shows_and_accepts_the_korean_option(where, tmp_path):
    right, wrong = korean_words(where)
    right_en, wrong_en = CHOICES[where]
    out = run_korean_kernel(where, [right, wrong])
    spec = out["spec"]
    assert spec["labels"][right_en] == right and spec["labels"][wrong_en] == wrong
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: the answer box is checked with Node.js")
    shutil.copy(ROOT / "site/static/attn-answers.js", tmp_path / "attn-answers.cjs")
    (tmp_path / "run.cjs").write_text(BOX, encoding="utf-8")
    typed = [right, wrong, right_en, wrong_en]
    box = subprocess.run(
        [node, "run.cjs"], input=json.dumps([spec, typed], ensure_ascii=False), cwd=tmp_path,
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    said = [[v["status"], v.get("diagnosis")] for v in json.loads(box.stdout)]
    kernel = out["verdicts"]
    assert said[0] == said[2] == ["correct", kernel[right][1]]
    assert said[1] == said[3] == ["wrong", f"chose-{wrong_en}"] == kernel[wrong][:2]
