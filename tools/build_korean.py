"""Write the Korean notebooks from the English ones and the Korean prose beside them.

Usage:
    python tools/build_korean.py                      every translated chapter
    python tools/build_korean.py 04_worked_example    one chapter
    python tools/build_korean.py --accept 04_worked_example 3f2a9c1b
        the Korean block marked 3f2a9c1b has been brought up to date with its English cell:
        record the English cell's current hash in its marker
    python tools/build_korean.py --new 05_projections
        start a translation: book/ko/05_projections.md with one marked block per English
        Markdown cell, holding the English text to be replaced by Korean
    python tools/build_korean.py --captions 05_projections
        add a block ``<!-- figure NAME en HASH -->`` holding the English caption template
        for each of the chapter's figures that has none, to be replaced by Korean

One code, two proses. ``book/ko/NN_name.md`` holds, for each Markdown cell of the English
notebook in order, a block headed ``<!-- en 3f2a9c1b -->`` (the first 8 hex digits of the
SHA-1 of the English cell's source, :func:`cell_hash`) and then the Korean Markdown. The
Korean notebook ``book/ko/NN_name.ipynb`` is the English notebook with every Markdown cell
replaced by its Korean block: code cells and their outputs are copied (the same computation,
never run twice), and each Korean cell's ``user_expressions`` (the stored ``{eval}`` values,
see site/attn_eval.py) are taken from the English notebook, so the Korean prose may quote only
expressions the English chapter evaluates. The checkers' "not answered yet" lines are the one
output in words: they are given in Korean, as a kernel started in ``book/ko`` prints them
(attn_book.exercises.catalog.language).

Figure captions are ``str.format`` templates (attn_book/figures.py): a block headed
``<!-- figure fig-x en 3f2a9c1b -->`` holds the Korean template of figure ``fig-x`` (the same
``{names}``; a literal brace is doubled, as in the English), and the Korean notebook's caption
is that template filled with the values the English caption output recorded. Stored
``figures.ref`` values read 그림 N.M.

A page that is pure Markdown (``book/intro.md``) is its own Korean page, ``book/ko/intro.md``:
one block per section of the English page (the text from one heading to the next).

Blocks are matched to English passages by their hashes where they agree and in order where
they do not (difflib), so :func:`drift` can say, as gettext marks a message fuzzy, which
Korean block translates an English passage that changed since (``stale``), which English
passage has no block (``missing``) and which block translates nothing any more (``orphan``).
"""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import re
import string
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from attn_book.figures import WORD, caption_hash, caption_text, translated_captions

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
KO = BOOK / "ko"
MARKER = re.compile(r"^<!-- en ([0-9a-f]{8}) -->[ \t]*$", re.MULTILINE)
ANY_MARKER = re.compile(r"^<!-- (?:en|figure \S+ en) [0-9a-f]{8} -->[ \t]*$", re.MULTILINE)
EVAL_ROLE = re.compile(r"\{eval\}`([^`]+)`")
LETTERS = re.compile(r"[A-Za-z]{3,}")


def has_words(text):
    """A passage that has words to translate: three or more Latin letters in a row outside
    maths and code (a block of only maths or code may stay as it is)."""
    prose = re.sub(r"\$[^$]*\$|`[^`]*`|```.*?```", "", text, flags=re.S)
    return bool(LETTERS.search(prose))


HEADING = re.compile(r"^(?=#{1,6} )", re.MULTILINE)


#: The short hash a Korean block records of the English passage it translates (a caption
#: block records its English template's the same way).
cell_hash = caption_hash


@dataclass
class Block:
    hash: str
    text: str


def parse_blocks(text):
    """The marked blocks of a Korean prose file, in order (text before the first marker is
    a comment for the translator and is dropped)."""
    prose = "".join(
        chunk
        for chunk in re.split(r"(?=^<!-- (?:en|figure) )", text, flags=re.MULTILINE)
        if not chunk.startswith("<!-- figure ")
    )
    parts = MARKER.split(prose)
    return [Block(h, body.strip()) for h, body in zip(parts[1::2], parts[2::2], strict=True)]


def write_blocks(blocks):
    return "\n\n".join(f"<!-- en {b.hash} -->\n{b.text}" for b in blocks) + "\n"


def english_passages(name):
    """The English passages a Korean file translates: the Markdown cells of the notebook, or
    the sections of a Markdown page."""
    notebook = BOOK / f"{name}.ipynb"
    if notebook.is_file():
        cells = nbformat.read(notebook, as_version=4).cells
        return [c.source for c in cells if c.cell_type == "markdown"]
    page = (BOOK / f"{name}.md").read_text(encoding="utf-8")
    return [s.strip() for s in HEADING.split(page) if s.strip()]


def align(passages, blocks):
    """Pair each English passage with its Korean block: ``[(passage index or None, block index
    or None)]``, equal hashes first, the rest in order."""
    ours = [cell_hash(p) for p in passages]
    theirs = [b.hash for b in blocks]
    pairs = []
    matcher = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            i = i1 + k if i1 + k < i2 else None
            j = j1 + k if j1 + k < j2 else None
            pairs.append((i, j))
    return pairs


def first_words(text, n=8):
    words = " ".join(text.split()).split(" ")
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def drift(name):
    """What the Korean translation of ``name`` lacks: a list of lines naming each stale block
    (its English passage changed), missing block and orphan block, with the English text's
    first words; empty when the translation is up to date."""
    passages = english_passages(name)
    blocks = parse_blocks((KO / f"{name}.md").read_text(encoding="utf-8"))
    found = []
    for i, j in align(passages, blocks):
        if i is not None and j is not None and blocks[j].text == passages[i].strip():
            if has_words(passages[i]):
                found.append(
                    f"{name}: the Korean block <!-- en {blocks[j].hash} --> is still the "
                    f'English text: "{first_words(passages[i])}"'
                )
        elif i is not None and j is not None and blocks[j].hash != cell_hash(passages[i]):
            found.append(
                f"{name}: the Korean block <!-- en {blocks[j].hash} --> translates an English "
                f"passage that changed (now {cell_hash(passages[i])}): "
                f'"{first_words(passages[i])}" — re-translate it, then run '
                f"tools/build_korean.py --accept {name} {blocks[j].hash}"
            )
        elif j is None:
            found.append(
                f"{name}: English passage {cell_hash(passages[i])} has no Korean block: "
                f'"{first_words(passages[i])}"'
            )
        elif i is None:
            found.append(
                f"{name}: the Korean block <!-- en {blocks[j].hash} --> translates no English "
                f'passage any more: "{first_words(blocks[j].text)}"'
            )
    return found + caption_drift(name)


def english_captions(name):
    """``{figure name: English caption template}`` of chapter ``name``, in order, as the
    English notebook's caption outputs record them (attn_book/figures.py)."""
    notebook = BOOK / f"{name}.ipynb"
    if not notebook.is_file():
        return {}
    found = {}
    for cell in nbformat.read(notebook, as_version=4).cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("attn_figure")
            if record:
                found[record["name"]] = record["caption"]
    return found


def caption_drift(name):
    """The captions of ``name`` without a Korean block, with a stale one, or still English."""
    english = english_captions(name)
    korean = translated_captions((KO / f"{name}.md").read_text(encoding="utf-8"))
    found = []
    for figure, template in english.items():
        if figure not in korean:
            found.append(
                f"{name}: figure {figure} has no Korean caption block (tools/build_korean.py "
                f'--captions {name}): "{first_words(template)}"'
            )
            continue
        digest, text = korean[figure]
        if text == template.strip() and has_words(template):
            found.append(f"{name}: the caption of {figure} is still the English text")
        elif digest != caption_hash(template):
            found.append(
                f"{name}: the Korean caption of {figure} <!-- figure {figure} en {digest} --> "
                f"translates an English caption that changed (now {caption_hash(template)}): "
                f'"{first_words(template)}" — re-translate it, then run '
                f"tools/build_korean.py --accept {name} {digest}"
            )
        elif fields(text) != fields(template):
            found.append(
                f"{name}: the Korean caption of {figure} has the values "
                f"{sorted(fields(text))}, the English {sorted(fields(template))}"
            )
    for figure in korean.keys() - english.keys():
        found.append(f"{name}: the Korean caption block of {figure} names no figure of the chapter")
    return found


def fields(template):
    """The ``{names}`` a ``str.format`` template fills."""
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def translated():
    """The names of the translated pages: every book/ko/*.md but the README."""
    return sorted(p.stem for p in KO.glob("*.md") if p.name != "README.md")


def stored_expressions(notebook):
    return {
        entry["expression"]: entry["result"]
        for cell in notebook.cells
        for entry in cell.metadata.get("user_expressions", [])
    }


def korean_user_expressions(source, english, where):
    """The ``user_expressions`` of a Korean cell, from the English notebook's stored values."""
    exprs = list(dict.fromkeys(EVAL_ROLE.findall(source)))
    unknown = [e for e in exprs if e not in english]
    if unknown:
        raise ValueError(
            f"{where}: the Korean prose quotes {{eval}} expressions the English chapter does "
            f"not evaluate: {', '.join(unknown)}; quote only the English prose's expressions"
        )
    return [{"expression": e, "result": korean_value(e, english[e])} for e in exprs]


#: A caption value naming a figure ("Figure 10.1"): a Korean kernel computes 그림 10.1.
FIGURE_REF = re.compile(rf"{WORD['en']} (\d+\.\d+)")


def korean_figure(text):
    """``"Figure 4.1"`` as a Korean kernel names it, ``"그림 4.1"``, wherever ``text`` says it."""
    return FIGURE_REF.sub(rf"{WORD['ko']} \1", text)


def korean_captions(cell, captions):
    """A code cell's figure captions in Korean (``captions``: the page's caption blocks); a
    value that names a figure (``figures.ref(...)``) is a 그림, as the Korean kernel has it."""
    for output in cell.get("outputs", []):
        record = output.get("metadata", {}).get("attn_figure")
        if not record:
            continue
        data = output["data"]
        number = re.match(rf"\*\*{WORD['en']} (\d+\.\d+)\.\*\*", data["text/markdown"])[1]
        template = captions.get(record["name"], ("", record["caption"]))[1]
        values = {k: korean_figure(v) for k, v in record["values"].items()}
        data["text/markdown"] = caption_text("ko", number, template, values)
        data["text/plain"] = "<IPython.core.display.Markdown object>"


def korean_value(expression, result):
    """A stored ``{eval}`` value as the Korean kernel computes it: a figure is a 그림."""
    result = copy.deepcopy(result)
    if expression.startswith(("figures.ref(", "stored_ref(")):
        data = result.get("data", {})
        for mime in ("text/plain", "text/markdown", "text/html"):
            if mime in data:
                data[mime] = korean_figure(data[mime])
    return result


def korean_outputs(cell):
    """A code cell's outputs with the checkers' "not answered yet" lines in Korean."""
    from attn_book.exercises.catalog import text

    lines = {}
    for key in ("unanswered-value", "unanswered-function"):
        icon, msg = (text("icon-unanswered", language="en"), text(key, language="en"))
        ko_icon, ko_msg = (text("icon-unanswered", language="ko"), text(key, language="ko"))
        lines[f"{icon}: {msg}"] = f"{ko_icon}: {ko_msg}"
        lines[f"**{icon}:** {msg}"] = f"**{ko_icon}:** {ko_msg}"
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        for mime in ("text/plain", "text/markdown"):
            if data.get(mime) in lines:
                data[mime] = lines[data[mime]]


def build_notebook(name):
    """The Korean notebook of chapter ``name`` (an nbformat notebook), from the English one."""
    english = nbformat.read(BOOK / f"{name}.ipynb", as_version=4)
    text = (KO / f"{name}.md").read_text(encoding="utf-8")
    blocks, captions = parse_blocks(text), translated_captions(text)
    markdown = [c for c in english.cells if c.cell_type == "markdown"]
    korean_of = {i: blocks[j].text for i, j in align([c.source for c in markdown], blocks)}
    korean_of = {i: t for i, t in korean_of.items() if i is not None}
    values = stored_expressions(english)
    notebook = copy.deepcopy(english)
    index = 0
    for n, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            korean_outputs(cell)
            korean_captions(cell, captions)
            continue
        source = korean_of.get(index, cell.source)  # an untranslated passage stays English
        index += 1
        cell.source = source
        cell.id = hashlib.sha1(source.encode("utf-8")).hexdigest()[:10]
        exprs = korean_user_expressions(source, values, f"book/ko/{name}.md, cell {n}")
        cell.metadata.pop("user_expressions", None)
        if exprs:
            cell.metadata["user_expressions"] = exprs
    nbformat.validate(notebook)
    return notebook


def write_notebook(name):
    notebook = build_notebook(name)
    path = KO / f"{name}.ipynb"
    text = nbformat.writes(notebook) + "\n"  # as jupytext writes the English notebooks
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")


def accept(name, old_hash):
    """Record in the block marked ``old_hash`` (a prose or a caption block) the hash of the
    English passage or caption it now translates."""
    path = KO / f"{name}.md"
    text = path.read_text(encoding="utf-8")
    passages = english_passages(name)
    blocks = parse_blocks(text)
    for i, j in align(passages, blocks):
        if j is not None and blocks[j].hash == old_hash:
            if i is None:
                raise SystemExit(f"{name}: block {old_hash} translates no English passage")
            fresh = cell_hash(passages[i])
            path.write_text(
                text.replace(f"<!-- en {old_hash} -->", f"<!-- en {fresh} -->", 1), "utf-8"
            )
            print(f"{name}: block {old_hash} now translates {fresh}")
            return
    english = english_captions(name)
    for figure, (digest, _) in translated_captions(text).items():
        if digest == old_hash and figure in english:
            fresh = caption_hash(english[figure])
            marker = f"<!-- figure {figure} en "
            path.write_text(
                text.replace(f"{marker}{old_hash} -->", f"{marker}{fresh} -->", 1), "utf-8"
            )
            print(f"{name}: the caption of {figure} now translates {fresh}")
            return
    raise SystemExit(f"{name}: no Korean block is marked {old_hash}")


def add_captions(name):
    """Append a caption block, holding the English template, for each figure without one."""
    path = KO / f"{name}.md"
    text = path.read_text(encoding="utf-8")
    have = translated_captions(text)
    added = [
        f"<!-- figure {figure} en {caption_hash(template)} -->\n{template.strip()}\n"
        for figure, template in english_captions(name).items()
        if figure not in have
    ]
    if added:
        path.write_text(text.rstrip("\n") + "\n\n" + "\n".join(added), encoding="utf-8")
    print(f"{path}: {len(added)} caption blocks added; replace each template's English by Korean")


def new(name):
    """Start the translation of ``name``: one block per English passage, in English."""
    path = KO / f"{name}.md"
    if path.exists():
        raise SystemExit(f"{path} exists already")
    blocks = [Block(cell_hash(p), p) for p in english_passages(name)]
    path.write_text(write_blocks(blocks), encoding="utf-8")
    print(f"wrote {path}: replace each block's English by Korean")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="chapters, e.g. 04_worked_example")
    parser.add_argument("--accept", nargs=2, metavar=("NAME", "HASH"))
    parser.add_argument("--new", metavar="NAME")
    parser.add_argument("--captions", metavar="NAME", help="add the chapter's caption blocks")
    args = parser.parse_args(argv)
    if args.captions:
        add_captions(args.captions)
        return 0
    if args.accept:
        accept(*args.accept)
        return 0
    if args.new:
        new(args.new)
        return 0
    names = args.names or translated()
    for name in names:
        if (BOOK / f"{name}.ipynb").is_file():
            write_notebook(name)
    stale = [line for name in names for line in drift(name)]
    for line in stale:
        print(f"warning: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
