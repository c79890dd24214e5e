"""The words inside code a reader sees: its comments and its docstrings, in the reader's language.

A chapter's comments and docstrings are its catalog ``comments/NN_name`` (tools/i18n.py
extracts them from the English notebook: its code cells, the Python fenced in its Markdown, a
folded solution's say, and the source a find-the-bug exercise shows). Found by Python's
tokenizer and parser, never a regular expression over code, so a ``#`` in a string is no
comment; the code between them stays byte for byte the English. The kernel uses this too: a
find-the-bug exercise's ``show()`` in a Korean kernel shows the buggy function with Korean
comments and docstring, as the Korean notebook's stored output does.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize

from attn_book import i18n

#: The comments of a chapter's code, one catalog per chapter so that translators of
#: different chapters never touch one file: domain ``comments/NN_name``, the file
#: ``<lang>/LC_MESSAGES/comments/NN_name.po``.
COMMENTS = "comments"
#: The context of a docstring's entry in a comments catalog (a comment has none).
DOCSTRING = "docstring"


def comments_domain(name):
    """The domain of the comments of page ``name``'s code: ``comments/NN_name``."""
    return f"{COMMENTS}/{name}"


#: A comment for a tool, not a reader (a linter's noqa, ``type: ignore``, ``fmt: skip``): never
#: extracted, the same in every language.
PRAGMA = re.compile(r"^(?:noqa|type:|fmt:|pragma\b|pylint:|ruff:|isort:|mypy:|pyright:|%%)", re.I)
#: What is not a word of a comment: code (a `quoted` span, a call's name, a name with "_", a
#: digit or a dot in it, one in capitals or in CamelCase), a shape (``[S, d_k]``, ``[trials, N,
#: F]``: brackets of items without spaces) and the names of maths functions and of types.
NOT_WORDS = re.compile(
    r"`[^`]*`"
    r"|\[\s*[^\s,\[\]]+(?:\s*,\s*[^\s,\[\]]+)*\s*\]"
    r"|[A-Za-z_][\w.]*\("
    r"|\b[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)+\b"
    r"|\w*[_0-9]\w*"
    r"|\b[A-Z]+s?\b"
    r"|\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b"
    r"|\b(?:cos|sin|tan|tanh|exp|log|ln|max|min|argmax|argmin|sqrt|std|var|Var|Cov|bool|int"
    r"|float|str|dtype|True|False|None)\b"
)
_COMMENT_MARK = re.compile(r"#+[ \t]?")


def comment_has_words(text, names=()):
    """Whether a comment's ``text`` (without its ``#``) is for a translator: it is no tool's
    pragma, and once code, shapes and maths names are taken out (:data:`NOT_WORDS`) a word of
    two Latin letters or more remains that is not one of ``names`` (the names the cell's code
    uses: ``# out / total`` over ``out = ...`` is code too). A shape, a number, a formula or a
    name stays as it is in every language.

    >>> [comment_has_words(t) for t in ("the divisor", "unscaled", "KV head 1", "x_i W and x_j W",
    ...     "[weight rows, weight columns]", '"a", "b" or "c"')]
    [True, True, True, True, True, True]
    >>> [comment_has_words(t) for t in ("noqa: E402", "type: ignore", "(3, 4)", "[S, d_k] @ [d_k]",
    ...     "‖q‖‖k‖cos θ", "Var[W_mi x_i] + Var[b_m]", "float32, h_kv = h", "나는, 사과를", "GQA",
    ...     "[S] @ [S, Ev] -> [Ev]", "w_i (δ_ij - w_j)")]
    [False, False, False, False, False, False, False, False, False, False, False]
    >>> comment_has_words("out / total", names={"out", "total"})
    False
    """
    if PRAGMA.match(text.strip()):
        return False
    words = re.findall(r"[A-Za-z]{2,}", NOT_WORDS.sub(" ", text))
    return any(w not in names for w in words)


def _tokens(source):
    """The tokens of ``source`` (a code cell; IPython's ``%``/``!`` lines blanked), or [] if
    it does not tokenize as Python."""
    lines = source.split("\n")
    blanked = "\n".join("" if s.lstrip().startswith(("%", "!")) else s for s in lines)
    try:
        return list(tokenize.generate_tokens(io.StringIO(blanked).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def _comment_tokens(source):
    return [t for t in _tokens(source) if t.type == tokenize.COMMENT]


def _comment_blocks(source):
    """The comments of ``source`` as a reader reads them: ``[(start, end, indent, lines)]``,
    each a span of ``source`` from a ``#`` to the end of its comment and the lines of its text
    (without ``#``). Comments on lines of their own, one under the other at the same column,
    are one block (a sentence may run over several lines); a comment after code is one line."""
    lines = source.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    blocks = []
    for token in _comment_tokens(source):
        (row, column), (end_row, end_column) = token.start, token.end
        before = lines[row - 1][:column]
        own_line = not before.strip()
        text = _COMMENT_MARK.sub("", token.string, count=1).rstrip()
        start, end = starts[row - 1] + column, starts[end_row - 1] + end_column
        last = blocks[-1] if blocks else None
        if own_line and last and last[2] == before and last[4] == row - 1:
            blocks[-1] = (last[0], end, before, [*last[3], text], row)
        else:
            blocks.append((start, end, before if own_line else None, [text], row))
    return [b[:4] for b in blocks]


def code_comments(source):
    """The comments of ``source`` (a code cell) a translator translates, found by Python's
    tokenizer (a ``#`` in a string is no comment): ``[(start, end, indent, text)]``, a block's
    span in ``source`` (:func:`_comment_blocks`; ``indent`` is None for a comment after code)
    and its text, the lines of a block joined by newlines, without ``# ``; only those with
    words (:func:`comment_has_words`). A translated notebook shows the translation
    (:func:`translate_comments`)."""
    names = {
        t.string
        for t in _tokens(source)
        if t.type == tokenize.NAME and not keyword.iskeyword(t.string)
    }
    return [
        (start, end, indent, "\n".join(lines))
        for start, end, indent, lines in _comment_blocks(source)
        if comment_has_words("\n".join(lines), names)
    ]


def translate_comments(source, name, language):
    """``source`` (a code cell of page ``name``) with each comment with words in ``language``
    (``comments/NN_name.po``): a block's translation on as many lines as the translator gave
    it, each at the block's indent; a comment after code on its line, after the same spaces
    (Hangul is twice as wide: no realignment). The code between is untouched."""
    out, done = [], 0
    for start, end, indent, text in code_comments(source):
        other = i18n.gettext(text, comments_domain(name), language)
        if other == text:
            continue
        if indent is None:
            translated = "# " + " ".join(other.split("\n"))
        else:
            translated = ("\n" + indent).join(
                f"# {line}" if line else "#" for line in other.split("\n")
            )
        out += [source[done:start], translated]
        done = end
    return "".join(out) + source[done:]


def without_comments(source):
    r"""``source`` with its comments taken out by the tokenizer: a comment after code with the
    spaces before it, a line that holds only a comment whole; the code byte for byte. Two
    notebooks whose cells differ only in their comments' words have the same code.

    >>> without_comments("x = 1  # one\n# a note\n#   more\ny = '# no comment'  # two\n")
    "x = 1\ny = '# no comment'\n"
    """
    lines = source.split("\n")
    by_row = {t.start[0]: t.start[1] for t in _comment_tokens(source)}
    kept = []
    for row, line in enumerate(lines, 1):
        if row not in by_row:
            kept.append(line)
        elif line[: by_row[row]].strip():
            kept.append(line[: by_row[row]].rstrip())
    return "\n".join(kept)


# --- docstrings ---


def _tree(source):
    """``source`` as a tree, IPython's ``%``/``!`` lines blanked; None if it is not Python."""
    lines = source.split("\n")
    try:
        return ast.parse("\n".join("" if s.lstrip().startswith(("%", "!")) else s for s in lines))
    except SyntaxError:
        return None


_STRING_START = re.compile(r"(?P<prefix>[rRuU]?)(?P<quote>\"\"\"|'''|\"|')")


def ast_offset(source):
    """``offset(line, column)``: the index in ``source`` of an ast position (lines from 1,
    columns in UTF-8 bytes)."""
    lines = source.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line, column):
        return starts[line - 1] + len(lines[line - 1].encode()[:column].decode())

    return offset


def docstrings(source, every=False):
    """The docstrings of ``source``'s functions and classes (the first statement of a ``def``
    or ``class`` body, a string constant) with words: ``[(start, end, text)]``, the span in
    ``source`` of the text between its quotes, and that text as a translator reads it (the
    continuation lines without the indent of the string's first line, a last line of only
    that indent, before the closing quotes, left out). The text is the source between the
    quotes, escapes as written, so a translation goes back in as it is typed. With ``every``,
    those without words too (a translated one).

    >>> src = 'def f(x):\\n    \"\"\"Halve x.\\n\\n    Twice.\\n    \"\"\"\\n    return x / 2\\n'
    >>> [(src[a:b], t) for a, b, t in docstrings(src)]
    [('Halve x.\\n\\n    Twice.\\n    ', 'Halve x.\\n\\nTwice.')]
    """
    tree = _tree(source)
    if tree is None:
        return []
    offset = ast_offset(source)

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = node.body[0] if node.body else None
        value = getattr(first, "value", None) if isinstance(first, ast.Expr) else None
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        start = offset(value.lineno, value.col_offset)
        end = offset(value.end_lineno, value.end_col_offset)
        opening = _STRING_START.match(source, start)
        if opening is None or not source.startswith(opening["quote"], end - len(opening["quote"])):
            continue  # implicitly joined strings: not translated
        a, b = opening.end(), end - len(opening["quote"])
        text = _docstring_text(source[a:b], " " * value.col_offset)
        if every or comment_has_words(text):
            found.append((a, b, text))
    return sorted(found)


def _docstring_text(body, indent):
    lines = body.split("\n")
    if len(lines) > 1 and not lines[-1].strip():
        lines = lines[:-1]
    rest = [line[len(indent) :] if line.startswith(indent) else line.lstrip() for line in lines[1:]]
    return "\n".join([lines[0], *rest])


def translate_docstrings(source, name, language):
    """``source`` with each docstring with words in ``language`` (``comments/NN_name.po``, the
    context ``docstring``): the translation between the same quotes, its continuation lines at
    the indent of the English's, the English's closing line kept; the code around untouched."""
    out, done = [], 0
    for start, end, text in docstrings(source):
        other = i18n.gettext(text, comments_domain(name), language, DOCSTRING)
        body = source[start:end]
        quote = source[start - 3 : start] if source[start - 3 : start] in ('"""', "'''") else None
        quote = quote or source[start - 1]
        if other == text or quote in other or (len(quote) == 1 and "\n" in other):
            continue
        line_start = source.rfind("\n", 0, start) + 1
        indent = re.match(r"[ \t]*", source[line_start:start])[0]
        tail = body[body.rfind("\n") :] if "\n" in body and not body.split("\n")[-1].strip() else ""
        translated = ("\n").join(
            [
                line if n == 0 or not line else indent + line
                for n, line in enumerate(other.split("\n"))
            ]
        )
        out += [source[done:start], translated + tail]
        done = end
    return "".join(out) + source[done:]


def without_docstrings(source):
    """``source`` with the text of each docstring (:func:`docstrings`) taken out,
    its quotes kept: two sources whose docstrings differ only in their words are equal."""
    out, done = [], 0
    for start, end, _ in docstrings(source, every=True):
        out += [source[done:start]]
        done = end
    return "".join(out) + source[done:]


# --- code fenced in Markdown ---

#: A fenced block of Python in Markdown (```python, ```{code-block} python, ```{code-cell}
#: python): its code, the lines between the fences, is group ``code``.
FENCED_PYTHON = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*"
    r"(?:python3?|py|ipython3?"
    r"|\{code-block\}[ \t]+python3?|\{code-cell\}[ \t]+(?:python3?|ipython3))"
    r"[ \t]*\n(?P<code>(?:(?![ \t]*(?P=fence)[ \t]*$).*\n)*?)[ \t]*(?P=fence)[ \t]*$",
    re.M,
)


def fenced_code(markdown):
    """The Python fenced in ``markdown``: ``[(start, end)]``, each block's code (between its
    fences; a directive's leading ``:option:`` lines left out).

    >>> md = "Text\\n\\n````{solution} x\\n```python\\nx = 1  # one\\n```\\n````\\n"
    >>> [md[a:b] for a, b in fenced_code(md)]
    ['x = 1  # one\\n']
    """
    spans = []
    for match in FENCED_PYTHON.finditer(markdown):
        start, end = match.span("code")
        while re.match(r"[ \t]*:[\w-]+:.*\n", markdown[start:end]):
            start = markdown.index("\n", start) + 1
        spans.append((start, end))
    return spans


def translate_words_in_code(source, name, language):
    """``source`` (a cell's code, a fenced block's) with its comments and docstrings with words
    in ``language``; the code byte for byte the same."""
    return translate_docstrings(translate_comments(source, name, language), name, language)


def translate_fenced(markdown, name, language, code=None):
    """``markdown`` with the Python it fences translated by :func:`translate_words_in_code`,
    then by ``code(source, language)`` if given (tools/i18n.py's ``translate_code``: the words
    it prints). A block a translator already put in ``language`` keeps its words: only what is
    still a catalog's English changes."""
    out, done = [], 0
    for start, end in fenced_code(markdown):
        source = translate_words_in_code(markdown[start:end], name, language)
        if code is not None:
            source = code(source, language)
        out += [markdown[done:start], source]
        done = end
    return "".join(out) + markdown[done:]


def chapter_of_module(module):
    """The page whose catalog holds the words of exercise module ``module``
    (``attn_book.exercises.ch01_dot_product`` → ``01_dot_product``), else None."""
    match = re.fullmatch(r"attn_book\.exercises\.ch(\d\d_\w+)", module or "")
    return match[1] if match else None


def translate_shown(source, module, language=None):
    """The source a find-the-bug exercise of ``module`` shows, in ``language`` (the kernel's):
    its comments and docstrings from its chapter's catalog."""
    language = language or i18n.LANGUAGE
    name = chapter_of_module(module)
    if language == "en" or name is None:
        return source
    return translate_words_in_code(source, name, language)
