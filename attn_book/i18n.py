"""Every word a reader sees, from gettext catalogs: one folder of PO files per language.

``attn_book/locale/messages.pot`` holds the English of every keyed text (the exercises' verdicts,
diagnoses and titles, the engine's lines, the answer box's labels; ``msgctxt`` is the key,
``engine/praise`` or ``ch4-weights-by-hand/title``). ``attn_book/locale/<lang>/LC_MESSAGES/``
holds a language's PO files: ``messages.po`` (the engine's and the answer box's lines), and one
file per page of the book, ``04_worked_example.po``, with that page's prose (one message per
paragraph, heading, fenced block or table row, the English as ``msgid``), its figures' captions
(``msgctxt`` ``figure fig-x``) and its chapter's exercise texts (keyed as in the template);
``figures.po``, the words figures, tables and widgets draw; ``code.po``, the words the chapters'
code prints, and ``comments/NN_name.po``, the comments of chapter NN's code cells (both used
when the translated notebooks are written, by ``tools/i18n.py``). The
catalogs ship inside the package, so an installed wheel shows the same translation as an
editable checkout.

A translation is used only when it is complete and current: an entry marked ``fuzzy`` (its
English changed since; the PO keeps the old English as ``#| msgid``) or left empty falls back
to the English. ``tools/i18n.py`` extracts, merges and reports; ``tests/test_korean.py`` fails
on every untranslated or fuzzy entry, naming it.

This module reads PO files with the standard library (the format's ``msgctxt``, ``msgid``,
``msgstr``, continuation lines and flags), so a kernel needs no extra package; the tools that
write catalogs use Babel, which Sphinx ships.

Examples
--------
>>> [s for s, _ in segments("# Title\\n\\nOne paragraph,\\ntwo lines.\\n\\n| a | b |\\n|---|---|")]
['# Title', 'One paragraph,\\ntwo lines.', '| a | b |', '|---|---|']
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

__all__ = [
    "FIGURES",
    "LANGUAGE",
    "LANGUAGES",
    "LOCALE",
    "drawing",
    "gettext",
    "is_word",
    "keyed",
    "keyed_section",
    "language",
    "po_entries",
    "segments",
    "translate_markdown",
    "word",
    "words",
]

#: The catalogs: ``messages.pot`` (the keyed English) and ``<lang>/LC_MESSAGES/*.po``.
LOCALE = Path(__file__).with_name("locale")
#: The languages with a catalog; English is complete, the others fall back to it text by text.
LANGUAGES = ("en", "ko")
#: The domain of every word a figure, a table or a widget draws (``figures.po``): the English
#: as ``msgid``, from ``word("...")`` calls in attn_book, ``t("...")`` calls in the widgets'
#: JavaScript and the words the English notebooks' outputs record (``attn_words``).
FIGURES = "figures"


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
_DRAWING = ContextVar("attn_drawing_language", default=None)


@contextmanager
def drawing(language):
    """Draw in ``language`` inside the block (a figure's copy for the other edition), whatever
    the kernel's language."""
    token = _DRAWING.set(language)
    try:
        yield
    finally:
        _DRAWING.reset(token)


def drawing_language():
    """The language figures are drawn in now: :func:`drawing`'s, else the kernel's."""
    return _DRAWING.get() or LANGUAGE


def word(text, language=None):
    """A word a figure, a table or a widget draws (``text``, English), in ``language`` (by
    default :func:`drawing_language`): its current translation in ``figures.po``, else itself.

    >>> word("weight", "en"), word("weight", "ko") != ""
    ('weight', True)
    """
    return gettext(text, FIGURES, language or drawing_language())


def is_word(text):
    """Whether a string a figure or a table draws has a word to translate: two Latin letters
    in a row (``"weight"``, ``"wⱼ unscaled"``; not ``"k1"``, ``"s = 2"``, ``"q·k"``, ``"3.0"``
    or a Korean token). Only such strings are recorded as an output's ``attn_words``.

    >>> [is_word(s) for s in ("sum", "wⱼ scaled", "k1", "q·k", "0.250", "고양이", "")]
    [True, True, False, False, False, False, False]
    """
    return bool(re.search(r"[A-Za-z]{2,}", str(text)))


def words(language=None):
    """``{English: translation}`` of every current translation of ``figures.po`` in
    ``language`` (default :func:`drawing_language`), for the widgets' JavaScript (its
    ``t("...")``), which falls back to the English as :func:`word` does."""
    language = language or drawing_language()
    return (
        {}
        if language == "en"
        else {i: s for (c, i), s in _catalog(FIGURES, language).items() if c is None}
    )


_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")


def segments(text):
    """``text`` (Markdown) cut into the units a translator translates, each with the white
    space that follows it: ``[(segment, separator), ...]``, so that
    ``"".join(s + sep for s, sep in segments(text)) == text``. A unit is a paragraph, a heading,
    a list, a fenced block (code or a directive, whole) or a ``$$`` display, or one table row."""
    units, start, fence, maths, offset = [], None, None, False, 0  # units: (start, end) offsets
    for line in text.split("\n"):
        stripped, end = line.strip(), offset + len(line)
        if start is None and stripped:
            start = offset
        if start is not None and fence is None and not maths:
            if not stripped:
                units.append((start, offset - 1))
                start = None
            elif stripped.startswith("|") and start == offset:  # a table row: a unit of its own
                units.append((start, end))
                start = None
        opener = _FENCE.match(line)
        if start is None:
            pass
        elif fence is None and not maths and opener:
            fence = opener.group(1)
        elif fence is not None and stripped.startswith(fence) and not stripped.strip(fence[0]):
            fence = None
        elif fence is None and stripped.startswith("$$") and stripped.count("$$") == 1:
            maths = not maths
        offset = end + 1
    if start is not None:
        units.append((start, len(text)))
    if not units:
        return [("", text)]
    parts = [("", text[: units[0][0]])] if units[0][0] else []
    for n, (a, b) in enumerate(units):
        following = units[n + 1][0] if n + 1 < len(units) else len(text)
        parts.append((text[a:b], text[b:following]))
    return parts


def has_words(text):
    """Whether ``text`` has words to translate: three Latin letters in a row outside maths
    (but inside its ``\\text{...}``), code, links' targets, labels and directive options. A
    unit of only maths or code stays as it is, in every language."""
    outside = (
        r"^\s*(`{3,}|~{3,})(?![`~])(?!\s*\{).*?^\s*\1\s*$"  # a code block (a directive's is prose)
        r"|\$\$.*?\$\$(?:[ \t]*\([\w-]+\))?|\$[^$\n]*\$|`[^`\n]*`|\]\([^)]*\)|^:\w+:.*$"
    )
    prose = re.sub(outside, "", text, flags=re.S | re.M)
    return bool(
        re.search(r"[A-Za-z]{3,}", prose + " ".join(re.findall(r"\\text\{([^{}]*)\}", text)))
    )


def translatable(unit):
    """Whether a unit goes into the catalogs: it has words, or it is displayed maths (whose
    closing punctuation belongs to the sentence around it)."""
    return has_words(unit) or unit.lstrip().startswith("$$")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(line):
    body = line.strip()[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], "\\" + m[1]), body)


def po_entries(text):
    """The entries of a PO file's ``text``: ``[{"context", "id", "string", "fuzzy",
    "previous"}]`` (obsolete ``#~`` entries left out).

    >>> po = '#, fuzzy\\n#| msgid "Old"\\nmsgctxt "k"\\nmsgid ""\\n"New "\\n"words"\\nmsgstr "새"'
    >>> po_entries(po)
    [{'context': 'k', 'id': 'New words', 'string': '새', 'fuzzy': True, 'previous': 'Old'}]
    """
    entries = []
    for block in re.split(r"\n\s*\n", text):
        entry = {"context": None, "id": None, "string": "", "fuzzy": False, "previous": None}
        field = None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["fuzzy"] = "fuzzy" in line
            elif line.startswith("#| msgid "):
                entry["previous"] = _unquote(line[len("#| msgid ") :])
                field = "previous"
            elif line.startswith('#| "') and field == "previous":
                entry["previous"] += _unquote(line[3:])
            elif line.startswith(("msgctxt ", "msgid ", "msgstr ")):
                keyword, _, rest = line.partition(" ")
                field = {"msgctxt": "context", "msgid": "id", "msgstr": "string"}[keyword]
                entry[field] = _unquote(rest)
            elif line.startswith('"') and field:
                entry[field] += _unquote(line)
        if entry["id"]:  # the header's msgid is empty
            entries.append(entry)
    return entries


@cache
def _catalog(domain, language):
    path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    if not path.is_file():
        return {}
    return {
        (e["context"], e["id"]): e["string"]
        for e in po_entries(path.read_text(encoding="utf-8"))
        if e["string"] and not e["fuzzy"]
    }


def gettext(msgid, domain, language, context=None):
    """``msgid`` in ``language``: its current translation in ``domain``'s catalog, else the
    English ``msgid`` itself."""
    if language == "en":
        return msgid
    return _catalog(domain, language).get((context, msgid), msgid)


def translate_markdown(text, domain, language):
    """Markdown ``text`` in ``language``, unit by unit (:func:`segments`); a unit without a
    current translation stays as it is."""
    return "".join(gettext(s, domain, language) + sep for s, sep in segments(text))


@cache
def keyed(language):
    """``{key: text}`` of every keyed text (``msgctxt``) in ``language``: the template's English,
    overlaid by every current translation of a keyed entry in the language's catalogs."""
    found = {
        e["context"]: e["id"] for e in po_entries((LOCALE / "messages.pot").read_text("utf-8"))
    }
    if language != "en":
        for path in sorted((LOCALE / language / "LC_MESSAGES").glob("*.po")):
            for entry in po_entries(path.read_text(encoding="utf-8")):
                key = entry["context"]
                if key in found and entry["string"] and not entry["fuzzy"]:
                    if entry["id"] == found[key]:
                        found[key] = entry["string"]
    return found


#: The keyed texts of the book's own tools, not the exercises': the printed book's front matter
#: (``pdf/title``, ...) and the table of contents' part captions (``toc/Foundations``, ...).
TOOL_SECTIONS = ("pdf", "toc")


def keyed_section(section, language):
    """``{id: text}`` of the keyed texts ``section/id`` in ``language``.

    >>> keyed_section("toc", "ko")["Foundations"], keyed_section("pdf", "en")["contents"]
    ('본문', 'Contents')
    """
    prefix = f"{section}/"
    return {k[len(prefix) :]: v for k, v in keyed(language).items() if k.startswith(prefix)}
