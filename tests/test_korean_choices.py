"""A predict-then-run exercise whose options are words: on the Korean page the reader may answer
with the catalog's Korean words for an option (``<id>/option-<option>``), in the notebook's
checker and in the site's answer box alike, and a wrong Korean option gets that option's own
diagnosis. Chapter 8's "which gradient vanishes" is the one such exercise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attn_book.exercises import catalog as cat

ROOT = Path(__file__).resolve().parents[1]
RIGHT = "dQ and dK, at d_k = 256"
WRONG = "dQ and dK, at d_k = 4"

KERNEL = r"""
import json, sys
from attn_book.exercises import ch08_learning as ch8
from attn_book.exercises.site import site_spec
ex = ch8.which_vanishes
out = {"spec": site_spec(ex), "verdicts": {}}
for typed in json.loads(sys.stdin.read()):
    f = ex.check(typed)
    out["verdicts"][typed] = [f.status, f.diagnosis, f.message]
print(json.dumps(out, ensure_ascii=False))
"""

BOX = """
const A = require("./attn-answers.cjs");
const [spec, typed] = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(typed.map((t) => A.checkChoice(spec, t))));
"""


def korean_words():
    """The Korean words of the two options, read from the catalog itself."""
    own = cat.catalog("ko")["exercises"]["ch8-which-vanishes"]
    return own[f"option-{RIGHT}"], own[f"option-{WRONG}"]


def run_korean_kernel(typed):
    env = {k: v for k, v in os.environ.items() if k != "ATTN_BOOK_LANG"}
    proc = subprocess.run(
        [sys.executable, "-c", KERNEL], input=json.dumps(typed, ensure_ascii=False),
        env={**env, "ATTN_BOOK_LANG": "ko"}, capture_output=True, text=True, check=True,
        cwd=ROOT,
    )  # fmt: skip
    return json.loads(proc.stdout)


def test_the_korean_options_are_hangul_and_differ_from_the_english():
    right, wrong = korean_words()
    assert right != RIGHT and wrong != WRONG and right != wrong
    assert all(any("\uac00" <= ch <= "\ud7a3" for ch in w) for w in (right, wrong))


def test_the_checker_accepts_the_korean_option_and_refuses_a_wrong_one():
    right, wrong = korean_words()
    typed = [right, f"  {right.upper()} ", wrong, RIGHT, "d_k = 512에서 dQ와 dK"]
    verdicts = run_korean_kernel(typed)["verdicts"]
    assert verdicts[right][:2] == ["correct", None]
    assert verdicts[f"  {right.upper()} "][:2] == ["correct", None]  # case and spaces
    assert verdicts[RIGHT][:2] == ["correct", None]  # the code value still counts
    status, diagnosis, message = verdicts[wrong]
    assert (status, diagnosis) == ("wrong", f"chose-{WRONG}")
    assert message == cat.catalog("ko")["exercises"]["ch8-which-vanishes"][f"chose-{WRONG}"]
    status, diagnosis, message = verdicts["d_k = 512에서 dQ와 dK"]
    assert (status, diagnosis) == ("wrong", "not-an-option")
    assert right in message and wrong in message  # it lists the options in Korean


def test_the_answer_box_shows_and_accepts_the_korean_option(tmp_path):
    right, wrong = korean_words()
    out = run_korean_kernel([right, wrong])
    spec = out["spec"]
    assert spec["labels"][RIGHT] == right and spec["labels"][WRONG] == wrong
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: the answer box is checked with Node.js")
    shutil.copy(ROOT / "site/static/attn-answers.js", tmp_path / "attn-answers.cjs")
    (tmp_path / "run.cjs").write_text(BOX, encoding="utf-8")
    typed = [right, wrong, RIGHT, WRONG]
    box = subprocess.run(
        [node, "run.cjs"], input=json.dumps([spec, typed], ensure_ascii=False), cwd=tmp_path,
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    said = [[v["status"], v.get("diagnosis")] for v in json.loads(box.stdout)]
    kernel = out["verdicts"]
    assert said[0] == said[2] == ["correct", kernel[right][1]]
    assert said[1] == said[3] == ["wrong", f"chose-{WRONG}"] == kernel[wrong][:2]
