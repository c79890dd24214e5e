"""The exercises' reader-facing text, from the book's gettext catalogs (:mod:`attn_book.i18n`).

Every verdict, diagnosis, hint, title and answer-box label is a keyed text: its English is in
``attn_book/locale/messages.pot`` under the key ``engine/<id>`` (the checker's own lines and the
generic rules), ``site/<id>`` (the answer box's labels), ``shared/<id>`` (diagnoses several
exercises reuse) or ``<exercise id>/<id>`` (an exercise's title, diagnoses and, for a choice,
``follow-up``); a language's translation of it is in that language's PO files (the engine's in
``messages.po``, an exercise's in its chapter's page, ``04_worked_example.po``), so a second
language changes no checker. A text is a ``str.format`` template (filled only when it has
parameters, so other braces are text); the site's JavaScript fills the same templates (``fill``
in attn-answers.js).

Examples
--------
>>> text("wrong-count", n=3, got=2)
'expected 3 numbers, got 2.'
>>> text("title", "ch4-weights-by-hand")
'the three weights for a new query, by hand'
"""

from __future__ import annotations

from functools import cache

from attn_book.i18n import LANGUAGE, LANGUAGES, TOOL_SECTIONS, keyed, language

__all__ = ["LANGUAGE", "LANGUAGES", "catalog", "language", "text"]  # the language: attn_book.i18n


@cache
def catalog(language=None):
    """Every keyed text of ``language`` (default :data:`LANGUAGE`) as ``{"engine": {id: text},
    "site": ..., "shared": ..., "exercises": {exercise id: {id: text}}}``; a text without a
    current translation is the English."""
    found = {"engine": {}, "site": {}, "shared": {}, "exercises": {}}
    for key, words in keyed(language or LANGUAGE).items():
        section, _, name = key.partition("/")
        if section in TOOL_SECTIONS:
            continue
        if section in found:
            found[section][name] = words
        else:
            found["exercises"].setdefault(section, {})[name] = words
    return found


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
