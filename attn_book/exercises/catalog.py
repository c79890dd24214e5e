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

__all__ = ["LANGUAGE", "catalog", "language", "text"]

#: The languages with a catalog; English is complete, the others fall back to it key by key.
LANGUAGES = ("en", "ko")


def language(cwd=None, environ=None):
    """The language of the reader-facing text: ``ATTN_BOOK_LANG`` if set, else ``"ko"`` in a
    kernel started in a folder named ``ko`` (``book/ko``: Jupyter and nbval start a notebook's
    kernel in its folder, so the Korean notebooks answer in Korean without a line of code),
    else ``"en"``.

    >>> language(cwd=Path("/x/book/ko"), environ={}), language(cwd=Path("/x/book"), environ={})
    ('ko', 'en')
    >>> language(cwd=Path("/x/book/ko"), environ={"ATTN_BOOK_LANG": "en"})
    'en'
    """
    environ = os.environ if environ is None else environ
    chosen = environ.get("ATTN_BOOK_LANG")
    if chosen is None:
        here = Path.cwd() if cwd is None else cwd
        chosen = "ko" if here.name == "ko" else "en"
    if chosen not in LANGUAGES:
        raise ValueError(f"ATTN_BOOK_LANG must be one of {LANGUAGES}, got {chosen!r}")
    return chosen


#: The language chosen when the package was imported (see :func:`language`).
LANGUAGE = language()


@cache
def catalog(language=None):
    """The whole catalog of ``language`` (default :data:`LANGUAGE`) as a dict; a language other
    than English takes each text it lacks from the English catalog. A language's catalog is
    ``messages/<lang>.json`` (the engine's lines, the answer box's labels) and one file per
    chapter in ``messages/<lang>/`` (that chapter's exercises), so that chapters are
    translated apart."""
    folder = Path(__file__).with_name("messages")
    english = json.loads((folder / "en.json").read_text(encoding="utf-8"))
    if (language or LANGUAGE) == "en":
        return english
    chosen = language or LANGUAGE
    files = [folder / f"{chosen}.json", *sorted((folder / chosen).glob("*.json"))]
    merged = {section: dict(texts) for section, texts in english.items()}
    for file in files:
        own = json.loads(file.read_text(encoding="utf-8"))
        for section, texts in own.items():
            if section == "exercises":
                for exercise, words in texts.items():
                    merged[section][exercise] = {
                        **merged[section].get(exercise, {}),
                        **words,
                    }
            else:
                merged[section].update(texts)
    return merged


def text(key, exercise=None, language=None, **params):
    """The text ``key`` of ``exercise`` (else shared, else the engine's), filled with ``params``."""
    messages = catalog(language)
    for section in (
        messages["exercises"].get(exercise, {}),
        messages["shared"],
        messages["engine"],
    ):
        if key in section:
            return section[key].format(**params) if params else section[key]
    raise KeyError(f"no text {key!r} for {exercise!r} in the {language or LANGUAGE!r} catalog")
