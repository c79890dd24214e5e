"""The translations: extract the English into the catalogs, merge, report, write the pages.

Usage:
    python tools/i18n.py                 update every language's catalogs from the English, then
                                         write its notebooks and pages, then report what is left
    python tools/i18n.py update          update the catalogs only
    python tools/i18n.py build           write the translated notebooks and pages only
    python tools/i18n.py status [PAGE]   report what each catalog lacks, with word diffs

Words are data (see attn_book/i18n.py for the catalogs' layout). The English is its own source:
the chapters' notebooks and the Markdown pages for prose and captions, ``messages.pot`` for the
keyed texts. ``update`` cuts every English page into units (a paragraph, a heading, a table row,
a fenced block), keeps those with words, and merges them into each language's PO file as
gettext's ``msgmerge`` does: an entry whose English is unchanged keeps its translation; one whose
English changed keeps it too, marked ``fuzzy``, with the old English as ``#| msgid`` (a keyed
entry by its key, a prose unit by the closest old English); a new unit comes in empty. A
translator edits the PO (any PO editor shows the old and the new English), removes ``fuzzy``.

``build`` writes ``book/<lang>/NN_name.ipynb``: the English notebook with its Markdown
translated unit by unit (a unit without a current translation stays English), its code cells
and outputs copied (one computation, never run twice) with the words they print translated
(``code.po``, :func:`printed_literals`) and its comments and docstrings with words translated
(``comments/NN_name.po``, one catalog per chapter, :func:`code_comments`, :func:`docstrings`;
the code itself byte for byte the English), as are the Python blocks its Markdown fences (a
folded solution's: comments, docstrings, printed words) and the sources its outputs show (a
find-the-bug exercise's ``show()``, which a Korean kernel translates the same way), each
caption filled from its translated template with the values the English output recorded,
the stored ``{eval}`` values the English ones (a figure is a 그림), the checkers' "not
answered yet" lines in the language. A Markdown
page (``intro.md``, ``glossary.md``, ``references.md``) is written as ``book/<lang>/NAME.md``.
"""

from __future__ import annotations

import argparse
import ast
import base64
import copy
import difflib
import hashlib
import importlib
import io
import re
import sys
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

from attn_book import i18n, tables, timing
from attn_book.code_words import (  # noqa: F401 (the tool's names, as the tests use them)
    COMMENTS,
    DOCSTRING,
    NOT_WORDS,
    PRAGMA,
    _comment_blocks,
    _comment_tokens,
    _tokens,
    ast_offset,
    code_comments,
    comment_has_words,
    comments_domain,
    docstrings,
    fenced_code,
    translate_comments,
    translate_docstrings,
    translate_fenced,
    translate_words_in_code,
    without_comments,
    without_docstrings,
)
from attn_book.exercises import kinds
from attn_book.exercises.catalog import LANGUAGES
from attn_book.figures import WORD, caption_text, translate_png

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
PAGES = ("intro", "glossary", "references")  # Markdown pages; the rest are notebooks
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
#: The keyed texts that are not one chapter's: the engine's lines, the answer box's, shared ones.
COMMON = "messages"
#: The words the code a reader sees prints (``code.po``): see :func:`printed_literals`.
CODE = "code"


def page_names():
    """Every page of the book that is translated: the Markdown pages and the notebooks."""
    notebooks = sorted(p.stem for p in BOOK.glob("[0-9][0-9]_*.ipynb"))
    return [*PAGES, *notebooks]


def template_keys():
    """``{key: English}`` of the keyed texts (``messages.pot``), in order."""
    return {e["context"]: e["id"] for e in i18n.po_entries(_read(i18n.LOCALE / "messages.pot"))}


def _read(path):
    return path.read_text(encoding="utf-8")


def exercise_ids(name):
    """The ids of the exercises of page ``name`` (module ``chNN_name``), or ()."""
    number, _, rest = name.partition("_")
    try:
        module = importlib.import_module(f"attn_book.exercises.ch{number}_{rest}")
    except ModuleNotFoundError:
        return ()
    return tuple(ex.id for ex in module.EXERCISES)


def english_units(name):
    """The messages of page ``name``'s catalog, in reading order: ``(context, English,
    location)`` for every unit of prose with words, every figure caption and every key of
    the chapter's exercises."""
    units = []
    notebook = BOOK / f"{name}.ipynb"
    if notebook.is_file():
        for n, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
            where = f"book/{name}.ipynb:{n}"
            if cell.cell_type == "markdown":
                units += [
                    (None, s, where) for s, _ in i18n.segments(cell.source) if i18n.translatable(s)
                ]
            for output in cell.get("outputs", []):
                record = output.get("metadata", {}).get("attn_figure")
                if record:
                    units.append((f"figure {record['name']}", record["caption"], where))
    else:
        text = _read(BOOK / f"{name}.md")
        units += [
            (None, s, f"book/{name}.md") for s, _ in i18n.segments(text) if i18n.translatable(s)
        ]
    keys = template_keys()
    for exercise in exercise_ids(name):
        units += [
            (k, v, "attn_book/locale/messages.pot")
            for k, v in keys.items()
            if k.startswith(f"{exercise}/")
        ]
    return units


def figure_units():
    """Every word a figure, a table or a widget draws (the ``figures`` domain), in order: the
    ``word("...")`` calls of attn_book's Python, the ``t("...")`` calls of the widgets'
    JavaScript (Babel's extractors), then the words the English notebooks' outputs record in
    their metadata (``attn_words``: the words a chapter's code passed to a figure or a table)."""
    from babel.messages.extract import extract_from_file

    units = []
    package = ROOT / "attn_book"
    sources = [("python", p, {"word": None}) for p in sorted(package.rglob("*.py"))]
    sources += [
        ("javascript", p, {"t": None}) for p in sorted((package / "widgets" / "src").glob("*.js"))
    ]
    for method, path, keywords in sources:
        for line, text, _, _ in extract_from_file(method, str(path), keywords=keywords):
            if isinstance(text, str) and text:
                units.append((None, text, f"{path.relative_to(ROOT)}:{line}"))
    for name in page_names():
        notebook = BOOK / f"{name}.ipynb"
        if not notebook.is_file():
            continue
        for n, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
            for output in cell.get("outputs", []):
                metadata = output.get("metadata", {})
                table = metadata.get("attn_table", {})  # its cells, as tables.py translates them
                cells = [c for row in table.get("rows", []) for c in row if i18n.is_word(c)]
                for text in [*metadata.get("attn_words", []), *cells]:
                    units.append((None, text, f"book/{name}.ipynb:{n}"))
    return units


def code_cells(name):
    notebook = BOOK / f"{name}.ipynb"
    if not notebook.is_file():
        return []
    cells = nbformat.read(notebook, as_version=4).cells
    return [(n, c) for n, c in enumerate(cells) if c.cell_type == "code"]


def comment_domains():
    """The comments' domain of every notebook of the book (one with no comment to translate
    too: its catalog exists, empty, for its translator)."""
    return [comments_domain(n) for n in page_names() if (BOOK / f"{n}.ipynb").is_file()]


def code_sources(name):
    """``[(cell number, source)]``: the Python page ``name`` shows a reader, in reading order:
    each code cell, each block of Python fenced in a Markdown cell (a folded solution's), and
    each source a code cell's output shows as a fenced block (a find-the-bug exercise's
    ``show()``)."""
    notebook = BOOK / f"{name}.ipynb"
    if not notebook.is_file():
        return []
    found = []
    for n, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        if cell.cell_type == "code":
            found.append((n, cell.source))
            for output in cell.get("outputs", []):
                shown = output.get("data", {}).get("text/markdown", "")
                found += [(n, shown[a:b]) for a, b in fenced_code(shown)]
        elif cell.cell_type == "markdown":
            found += [(n, cell.source[a:b]) for a, b in fenced_code(cell.source)]
    return found


def comment_units(name):
    """Every comment with words (:func:`code_comments`) and every docstring with words
    (:func:`docstrings`, context ``docstring``) of the Python page ``name`` shows
    (:func:`code_sources`), in reading order."""
    units = []
    for n, source in code_sources(name):
        found = [(s, None, t) for s, _, _, t in code_comments(source)]
        found += [(s, DOCSTRING, t) for s, _, t in docstrings(source)]
        units += [(context, text, f"book/{name}.ipynb:{n}") for _, context, text in sorted(found)]
    return units


def code_units():
    """Every piece of text with words that the chapters' code prints (:func:`printed_literals`),
    in reading order."""
    return [
        (None, piece, f"book/{name}.ipynb:{n}")
        for name in page_names()
        for n, source in code_sources(name)
        for *_, pieces in printed_literals(source)
        for piece in pieces
    ]


def common_units():
    """The keyed texts of no chapter: the engine's lines, the answer box's labels, shared ones,
    the printed book's front matter and the table of contents' captions."""
    return [
        (k, v, "attn_book/locale/messages.pot")
        for k, v in template_keys().items()
        if k.split("/")[0] in ("engine", "site", "shared", *i18n.TOOL_SECTIONS)
    ]


def template(units):
    catalog = Catalog(fuzzy=False)
    for context, english, where in units:
        if catalog.get(english, context) is None:
            path, _, line = where.partition(":")
            catalog.add(english, context=context, locations=[(path, int(line or 0))])
    return catalog


def merge(old, new):
    """``new`` (a template) with the translations of ``old`` carried over, as msgmerge does: an
    unchanged English keeps its translation; a changed one keeps it marked ``fuzzy`` with the
    old English as ``previous_id`` (a keyed text: the same key; prose: the closest old unit
    not taken, at least 60 % alike); the rest of ``old`` is dropped."""
    merged = Catalog(locale=old.locale, fuzzy=False, header_comment=old.header_comment)
    merged.language_team, merged.last_translator = old.language_team, old.last_translator
    by_key = {m.context: m for m in old if m.id and m.context}
    spare = {m.id: m for m in old if m.id and not m.context and m.string}
    for message in new:
        if not message.id:
            continue
        fresh = Message(message.id, context=message.context, locations=message.locations)
        found = old.get(message.id, message.context)
        if found is None and message.context:
            found = by_key.get(message.context)
        elif found is None:
            close = difflib.get_close_matches(message.id, spare, 1, 0.6)
            found = spare.pop(close[0]) if close else None
        else:
            spare.pop(message.id, None)
        if found is not None and found.string:
            fresh.string = found.string
            fresh.user_comments = list(found.user_comments)
            if found.id != message.id:
                fresh.flags.add("fuzzy")
                fresh.previous_id = [found.previous_id[0] if found.previous_id else found.id]
            elif found.fuzzy:
                fresh.flags.add("fuzzy")
                fresh.previous_id = list(found.previous_id)
        merged[message.id] = fresh
    return merged


def po_path(language, domain):
    return i18n.LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def load(language, domain):
    path = po_path(language, domain)
    if not path.is_file():
        return Catalog(locale=language, fuzzy=False)
    with path.open("rb") as f:
        return read_po(f, locale=language)


def serialize(catalog):
    """A catalog as its PO file's bytes (no dates: the same catalog, the same bytes)."""
    catalog.project, catalog.version = "Attention by Hand", "1"
    catalog.copyright_holder = "The Attention by Hand authors"
    catalog.msgid_bugs_address = ""
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, sort_output=False, include_previous=True,
             ignore_obsolete=True)  # fmt: skip
    return re.sub(rb'"(POT-Creation-Date|PO-Revision-Date): [^"]*\\n"\n', b"", buffer.getvalue())


def save(catalog, language, domain):
    path = po_path(language, domain)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = serialize(catalog)
    if not path.is_file() or path.read_bytes() != text:
        path.write_bytes(text)
        print(f"wrote {path.relative_to(ROOT)}")


def updated(language):
    """``{domain: catalog}``: each of ``language``'s catalogs merged with today's English."""
    found = {COMMON: merge(load(language, COMMON), template(common_units()))}
    found[i18n.FIGURES] = merge(load(language, i18n.FIGURES), template(figure_units()))
    found[CODE] = merge(load(language, CODE), template(code_units()))
    for name in page_names():
        found[name] = merge(load(language, name), template(english_units(name)))
    for name in page_names():
        if (BOOK / f"{name}.ipynb").is_file():
            domain = comments_domain(name)
            found[domain] = merge(load(language, domain), template(comment_units(name)))
    return found


def update(languages):
    for language in languages:
        for domain, catalog in updated(language).items():
            save(catalog, language, domain)


def word_diff(old, new):
    """The words of ``old`` that ``new`` drops, [-so-], and adds, {+so+}."""
    a, b = old.split(), new.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out += a[i1:i2] if i2 - i1 <= 6 else [*a[i1 : i1 + 3], "…", *a[i2 - 3 : i2]]
        else:
            out += [f"[-{' '.join(a[i1:i2])}-]"] if i2 > i1 else []
            out += [f"{{+{' '.join(b[j1:j2])}+}}"] if j2 > j1 else []
    return " ".join(out)


def first_words(text, n=10):
    words = text.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def status(language, domains=None):
    """One line per entry of ``language``'s catalogs that is not a current translation: empty
    (with the English's first words), fuzzy (with the word diff of its English), or missing
    from the catalog (``update`` was not run). ``domains`` may name a page (``04_worked_example``:
    its prose and its code's comments) or one catalog (``comments/04_worked_example``)."""
    lines = []
    units = {COMMON: common_units, i18n.FIGURES: figure_units, CODE: code_units}
    chosen = []
    for domain in domains or [COMMON, i18n.FIGURES, CODE, *page_names()]:
        chosen.append(domain)
        if domain in page_names() and (BOOK / f"{domain}.ipynb").is_file():
            chosen.append(comments_domain(domain))
    for domain in chosen:
        where = po_path(language, domain).relative_to(ROOT)
        if domain.startswith(f"{COMMENTS}/"):
            expected = template(comment_units(domain.partition("/")[2]))
        else:
            expected = template(units[domain]() if domain in units else english_units(domain))
        have = (
            {(e["context"], e["id"]): e for e in i18n.po_entries(_read(po_path(language, domain)))}
            if po_path(language, domain).is_file()
            else {}
        )
        for message in expected:
            if not message.id:
                continue
            label = f"{where}: " + (f"[{message.context}] " if message.context else "")
            entry = have.get((message.context, message.id))
            if entry is None:
                lines.append(
                    f"{label}not in the catalog (run tools/i18n.py update): "
                    f'"{first_words(message.id)}"'
                )
            elif entry["fuzzy"]:
                diff = word_diff(entry["previous"] or "", message.id)
                lines.append(f"{label}fuzzy, its English changed: {diff}")
            elif not entry["string"]:
                lines.append(f'{label}not translated: "{first_words(message.id)}"')
    return lines


# --- the words the code prints ---


def _python(source):
    """A code cell's ``source`` as a tree, IPython's ``%``/``!`` lines blanked; None if it is
    not Python."""
    lines = source.split("\n")
    try:
        return ast.parse("\n".join("" if s.lstrip().startswith(("%", "!")) else s for s in lines))
    except SyntaxError:
        return None


def _print_calls(root):
    return [
        n
        for n in ast.walk(root)
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "print"
    ]


def _choices(node):
    """The strings a conditional of string literals gives (``"pinned" if on else "not
    pinned"``: both, in the order the source writes them), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _choices(node.body), _choices(node.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


def _pieces(arg):
    """The literal parts with words of one argument of a ``print`` (both strings of a
    conditional of string literals)."""
    if isinstance(arg, ast.IfExp):
        return [c for c in _choices(arg) or [] if i18n.is_word(c)]
    parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
    return [
        p.value
        for p in parts
        if isinstance(p, ast.Constant) and isinstance(p.value, str) and i18n.is_word(p.value)
    ]


def printed_literals(source):
    """Each string a ``print(...)`` call of ``source`` (a code cell) is given literally, with
    words (two Latin letters in a row): ``[(start, end, is_fstring, pieces)]``, its span in
    ``source`` and the pieces a translator translates, an f-string's literal parts one by one
    (``f"gap {g}: norm {n:.2g}"`` has ``"gap "`` and ``": norm "``). A translated notebook
    prints the translation (:func:`translate_code`); its copied outputs say the same
    (:func:`translate_printed`), and nbval, which runs the translated notebooks too, holds the
    two together."""
    tree = _python(source)
    if tree is None:
        return []
    offset = ast_offset(source)

    return sorted(
        (
            offset(arg.lineno, arg.col_offset),
            offset(arg.end_lineno, arg.end_col_offset),
            isinstance(arg, ast.JoinedStr),
            pieces,
        )
        for call in _print_calls(tree)
        for arg in call.args
        if (pieces := _pieces(arg))
    )


def _in_source(text, fstring, quote):
    """``text`` as a string literal's source writes it (between its quotes)."""
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    text = text.replace(quote, "\\" + quote)
    return text.replace("{", "{{").replace("}", "}}") if fstring else text


def translate_code(source, language):
    """``source`` (a code cell) with the words it prints in ``language`` (``code.po``)."""
    out, done = [], 0
    for start, end, fstring, pieces in printed_literals(source):
        literal = source[start:end]
        quote = literal.lstrip("rRbBfFuU")[0]
        at = 0
        for piece in pieces:
            english = _in_source(piece, fstring, quote)
            at = literal.index(english, at)  # a literal's pieces come in order
            other = _in_source(i18n.gettext(piece, CODE, language), fstring, quote)
            literal = literal[:at] + other + literal[at + len(english) :]
            at += len(other)
        out += [source[done:start], literal]
        done = end
    return "".join(out) + source[done:]


def _printed_line(call):
    """What ``call`` (a ``print``) writes, as a pattern: its literal text escaped, each value a
    lazy wildcard (within its line if it is an f-string's field; a leading one greedy within
    its line, for a value that holds the text that follows it: ``f"{label:21} position {p}"``),
    each literal piece with words a group of its own; with the pieces in group order. None
    unless it writes to stdout and has such a piece."""
    keywords = {k.arg: k.value for k in call.keywords}
    if "file" in keywords:
        return None

    def literal(node, default):
        if node is None:
            return re.escape(default)
        return re.escape(node.value) if isinstance(node, ast.Constant) else r"[\s\S]*?"

    parts, pieces = [], []
    for n, arg in enumerate(call.args):
        if n:
            parts.append(literal(keywords.get("sep"), " "))
        choices = _choices(arg) if isinstance(arg, ast.IfExp) else None
        if choices and any(map(i18n.is_word, choices)):  # one group, whichever was printed
            parts.append(f"({'|'.join(map(re.escape, choices))})")
            pieces.append(choices)
            continue
        for part in arg.values if isinstance(arg, ast.JoinedStr) else [arg]:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                if i18n.is_word(part.value):
                    parts.append(f"({re.escape(part.value)})")
                    pieces.append(part.value)
                else:
                    parts.append(re.escape(part.value))
            else:  # a value: a field of an f-string stays on its line, a whole value may not
                inline = isinstance(arg, ast.JoinedStr)
                parts.append(r"[^\n]*" if not parts else r"[^\n]*?" if inline else r"[\s\S]*?")
    parts.append(literal(keywords.get("end"), "\n"))
    start = r"(?m)(?:^|(?<= ))"  # a line's start, or after a print that ended with a space
    return (re.compile(start + "".join(parts)), pieces) if pieces else None


def printed_lines(source, functions_only=False):
    """The patterns of what the ``print`` calls of ``source`` write (:func:`_printed_line`);
    with ``functions_only``, of those inside the functions it defines (they print where they
    are called, maybe in a later cell)."""
    tree = _python(source)
    if tree is None:
        return []
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    roots = functions if functions_only else [tree]
    calls = [call for root in roots for call in _print_calls(root)]
    return [line for line in map(_printed_line, calls) if line]


def translate_printed(cell, lines, language):
    """The printed outputs of ``cell`` (a copy of the English one's) in ``language``: in each
    stretch of the output that one of ``lines`` (:func:`printed_lines`: what this cell and the
    functions defined before it print) wrote, its pieces with words, translated; values as
    they are."""
    for output in cell.get("outputs", []):
        if output.get("output_type") != "stream" or output.get("name") != "stdout":
            continue
        for pattern, pieces in lines:

            def translated(match, pieces=pieces):
                out, at = [], match.start()
                for n in range(1, len(pieces) + 1):  # a conditional's group: what it printed
                    out += [
                        match.string[at : match.start(n)],
                        i18n.gettext(match[n], CODE, language),
                    ]
                    at = match.end(n)
                return "".join(out) + match.string[at : match.end()]

            output["text"] = pattern.sub(translated, output["text"])
        for translator in PRINTED_TRANSLATORS:
            output["text"] = translator(output["text"], language)


#: How the words a library function printed (a value to a ``print``, so not in its pattern)
#: are translated in a copied output: ``function(text, language)``, by the module that prints
#: them (the timing's words are ``word("...")`` templates of ``figures.po``; a choice
#: exercise's options, its catalog's ``option-<option>``).
PRINTED_TRANSLATORS = (timing.translate_printed, kinds.translate_printed_options)


# --- the translated notebooks and pages ---


def stored_expressions(notebook):
    return {
        entry["expression"]: entry["result"]
        for cell in notebook.cells
        for entry in cell.metadata.get("user_expressions", [])
    }


FIGURE_REF = re.compile(rf"{WORD['en']} (\d+\.\d+)")


def named_figure(text, language):
    """``"Figure 4.1"`` as a kernel in ``language`` names it (``"그림 4.1"``)."""
    return FIGURE_REF.sub(rf"{WORD[language]} \1", text)


def stored_value(expression, result, language):
    """A stored ``{eval}`` value as a kernel in ``language`` computes it: a figure's name, a
    timing fallback word (:data:`attn_book.timing.FILLED`, chapter 10's ``word("unknown")``)."""
    result = copy.deepcopy(result)
    data = result.get("data", {})
    for filled in timing.FILLED:
        if data.get("text/plain") == repr(filled):
            data["text/plain"] = repr(i18n.gettext(filled, i18n.FIGURES, language))
    if expression.startswith(("figures.ref(", "stored_ref(")):
        data = result.get("data", {})
        for mime in ("text/plain", "text/markdown", "text/html"):
            if mime in data:
                data[mime] = named_figure(data[mime], language)
    return result


#: How an output that records its words is drawn again in another language: ``{metadata key:
#: function(output, language)}``, changing ``output`` in place (a table re-rendered from its
#: recorded cells, a plot's image swapped for the copy drawn in that language, a widget's
#: words and snapshot). Each module that records words registers its own.
OUTPUT_TRANSLATORS = {
    "attn_table": tables.translate_output,  # headings and row labels, from the recorded cells
    "attn_translations": translate_png,  # a plot's image, for the copy drawn in the language
}


def translate_outputs(cell, name, language):
    """A code cell's outputs in ``language``: its captions (the translated template, filled
    with the recorded values), the checkers' "not answered yet" lines, and every output that
    records its words (:data:`OUTPUT_TRANSLATORS`)."""
    from attn_book.exercises.catalog import text

    lines = {}
    for key in ("unanswered-value", "unanswered-function"):
        en = (text("icon-unanswered", language="en"), text(key, language="en"))
        other = (text("icon-unanswered", language=language), text(key, language=language))
        lines[f"{en[0]}: {en[1]}"] = f"{other[0]}: {other[1]}"
        lines[f"**{en[0]}:** {en[1]}"] = f"**{other[0]}:** {other[1]}"
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        for mime in ("text/plain", "text/markdown"):
            if data.get(mime) in lines:
                data[mime] = lines[data[mime]]
        shown = data.get("text/markdown", "")
        if (
            fenced_code(shown)
            and data.get("text/plain", "") + "\n```" == shown[len("```python\n") :]
        ):
            data["text/markdown"] = translate_fenced(shown, name, language)  # a shown source
            data["text/plain"] = translate_words_in_code(data["text/plain"], name, language)
        for key, translator in OUTPUT_TRANSLATORS.items():
            if key in output.get("metadata", {}):
                translator(output, language)
        record = output.get("metadata", {}).get("attn_figure")
        if record:
            number = re.match(rf"\*\*{WORD['en']} (\d+\.\d+)\.\*\*", data["text/markdown"])[1]
            caption = i18n.gettext(record["caption"], name, language, f"figure {record['name']}")
            values = {k: named_figure(v, language) for k, v in record["values"].items()}
            data["text/markdown"] = caption_text(language, number, caption, values)


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def translate_widgets(notebook, language, name="notebook", capture=False):
    """The book's figures (anywidgets) of ``notebook`` drawn in ``language``: each one's stored
    state (the notebook's widget-state metadata, what the static site draws) gets its words in
    ``language`` (its ``words`` trait: ``attn_book.widgets._base.figure_words``), and each
    figure's output the snapshot of that state (``image/png``, what JupyterLab shows before
    the notebook runs), captured in headless Chromium when it is not stored yet and
    ``capture`` (``build`` does, as tools/sync_chapters.py does; a test that compares a built
    notebook with the committed one captures nothing)."""
    from attn_book.widgets import snapshot
    from attn_book.widgets._base import SNAPSHOT_METADATA, figure_words

    states = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    figures = {}
    for model_id, model in states.items():
        state = model.get("state", {})
        if str(state.get("_anywidget_id", "")).startswith("attn_book.widgets."):
            state["words"] = figure_words(state.get("_esm", ""), language)
            figures[model_id] = state
    shown = [
        (output, figures[view["model_id"]])
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if (view := output.get("data", {}).get(WIDGET_VIEW)) and view.get("model_id") in figures
    ]
    keys = [snapshot.snapshot_key(state) for _, state in shown]
    missing = {k: s for k, (_, s) in zip(keys, shown, strict=True) if not snapshot.stored_png(k)}
    why = (snapshot.can_capture() if capture else "not captured here") if missing else None
    if missing and why is None:
        snapshot.SNAPSHOTS.mkdir(exist_ok=True)
        for key, png in zip(missing, snapshot.capture(list(missing.values())), strict=True):
            (snapshot.SNAPSHOTS / f"{key}.png").write_bytes(png)
        print(f"{name} ({language}): captured {len(missing)} figure snapshot(s)")
    for key, (output, state) in zip(keys, shown, strict=True):
        output.setdefault("metadata", {})[SNAPSHOT_METADATA] = key
        png = snapshot.stored_png(key)
        if png is None:
            output["data"].pop("image/png", None)
            print(
                f"warning: {name} ({language}): {state['_anywidget_id'].rsplit('.', 1)[-1]} "
                f"has no snapshot {key}, so JupyterLab shows its text until the notebook runs: "
                f"{why}. Build the translations where Chromium is installed.",
                file=sys.stderr,
            )
        else:
            output["data"]["image/png"] = base64.b64encode(png).decode("ascii")


def build_notebook(name, language, capture=False):
    """The notebook of page ``name`` in ``language``, from the English one."""
    english = nbformat.read(BOOK / f"{name}.ipynb", as_version=4)
    values = stored_expressions(english)
    notebook = copy.deepcopy(english)
    by_functions = []  # what the functions defined so far print
    for n, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            by_functions += printed_lines(cell.source, functions_only=True)
            translate_outputs(cell, name, language)
            translate_printed(cell, printed_lines(cell.source) + by_functions, language)
            cell.source = translate_code(
                translate_words_in_code(cell.source, name, language), language
            )
            continue
        cell.source = translate_fenced(
            i18n.translate_markdown(cell.source, name, language), name, language, translate_code
        )
        cell.id = hashlib.sha1(cell.source.encode("utf-8")).hexdigest()[:10]
        exprs = list(dict.fromkeys(EVAL_ROLE.findall(cell.source)))
        unknown = [e for e in exprs if e not in values]
        if unknown:
            raise SystemExit(
                f"attn_book/locale/{language}/LC_MESSAGES/{name}.po, cell {n}: the translation "
                f"quotes {{eval}} expressions the English does not evaluate: {', '.join(unknown)}"
            )
        cell.metadata.pop("user_expressions", None)
        if exprs:
            cell.metadata["user_expressions"] = [
                {"expression": e, "result": stored_value(e, values[e], language)} for e in exprs
            ]
    translate_widgets(notebook, language, name, capture)
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"  # as jupytext writes the English notebooks


def build_page(name, language):
    """The Markdown page ``name`` in ``language``."""
    return i18n.translate_markdown(_read(BOOK / f"{name}.md"), name, language)


def built(name, language, capture=False):
    """``(path, text)`` of page ``name``'s translation."""
    if (BOOK / f"{name}.ipynb").is_file():
        return BOOK / language / f"{name}.ipynb", build_notebook(name, language, capture)
    return BOOK / language / f"{name}.md", build_page(name, language)


def build(languages):
    for language in languages:
        for name in page_names():
            path, text = built(name, language, capture=True)
            if not path.is_file() or _read(path) != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}")
    from sync_chapters import prune_snapshots  # a translation's old snapshots go too

    prune_snapshots()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "command", nargs="?", default="all", choices=["all", "update", "build", "status"]
    )
    parser.add_argument("pages", nargs="*", help="with status: pages, e.g. 04_worked_example")
    args = parser.parse_args(argv)
    languages = [lang for lang in LANGUAGES if lang != "en"]
    if args.command in ("all", "update"):
        update(languages)
    if args.command in ("all", "build"):
        build(languages)
    if args.command in ("all", "status"):
        lines = [line for lang in languages for line in status(lang, args.pages or None)]
        for line in lines:
            print(line, file=sys.stderr)
        print(f"{len(lines)} entries to translate or review", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
