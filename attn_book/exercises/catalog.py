"""The exercises' reader-facing text: one catalog per language, ``messages/<lang>.json``.

Every verdict, diagnosis, hint, title and answer-box label lives there, keyed by id, so that
a second language is a second file and changes no checker. Sections: ``engine`` (the
checker's own lines and the generic rules), ``site`` (the answer box's labels), ``shared``
(diagnoses several exercises reuse) and ``exercises`` (``{exercise id: {diagnosis id:
text}}``, with ``title`` and, for a choice, ``follow-up``). A text is a ``str.format``
template (filled only when it has parameters, so other braces are text); the site's
JavaScript fills the same templates (``fill`` in attn-answers.js).

Examples
--------
>>> text("wrong-count", n=3, got=2)
'expected 3 numbers, got 2.'
>>> text("title", "ch4-weights-by-hand")
'the three weights for a new query, by hand'
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

__all__ = ["LANGUAGE", "catalog", "text"]

#: The language of the reader-facing text (``ATTN_BOOK_LANG``, default English).
LANGUAGE = os.environ.get("ATTN_BOOK_LANG", "en")


@cache
def catalog(language=None):
    """The whole catalog of ``language`` (default :data:`LANGUAGE`) as a dict."""
    path = Path(__file__).with_name("messages") / f"{language or LANGUAGE}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def text(key, exercise=None, **params):
    """The text ``key`` of ``exercise`` (else shared, else the engine's), filled with ``params``."""
    messages = catalog()
    for section in (
        messages["exercises"].get(exercise, {}),
        messages["shared"],
        messages["engine"],
    ):
        if key in section:
            return section[key].format(**params) if params else section[key]
    raise KeyError(f"no text {key!r} for {exercise!r} in the {LANGUAGE!r} catalog")
