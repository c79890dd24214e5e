"""The Korean site's search (site/attn_ko.py): a word typed with a trailing particle or ending
is searched without it, by the same rule in Python (the index) and in the search page's
JavaScript Stemmer (the query), run here in node."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))

from attn_ko import KoreanSearch, strip_particle  # noqa: E402 - after the path insert

NODE = shutil.which("node")
WORDS = {  # typed -> searched
    "소프트맥스를": "소프트맥스",
    "소프트맥스": "소프트맥스",
    "어텐션에서": "어텐션",
    "어텐션으로": "어텐션",
    "가중치는": "가중치",
    "벡터들의": "벡터",
    "행렬이다": "행렬",
    "쿼리와": "쿼리",
    "키가": "키가",  # one syllable would be left: kept
    "정의": "정의",
    "각도": "각도",
    "softmax": "softmax",
    "qk": "qk",
}


def test_strip_particle_drops_a_trailing_particle():
    assert {word: strip_particle(word) for word in WORDS} == WORDS


def test_the_index_and_the_query_stem_alike():
    search = KoreanSearch(options={})
    assert [search.stem(w) for w in WORDS] == list(WORDS.values())
    # A stem is one of the word's indexed prefixes: the index loses no page by stemming.
    for word in ("소프트맥스를", "어텐션에서는"):
        assert search.stem(word) in search.split(word)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_search_pages_stemmer_is_strip_particle():
    script = KoreanSearch.js_stemmer_code + (
        "const s = new Stemmer();\n"
        "const words = JSON.parse(process.argv[1]);\n"
        "console.log(JSON.stringify(words.map((w) => s.stemWord(w))));\n"
    )
    run = [NODE, "-e", script, json.dumps(list(WORDS), ensure_ascii=False)]
    out = subprocess.run(run, capture_output=True, text=True, check=True, encoding="utf-8")
    assert json.loads(out.stdout) == list(WORDS.values())
