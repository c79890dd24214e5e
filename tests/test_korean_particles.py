"""Korean particles after a computed value (issue #41).

A Korean particle's form depends on how the word before it ends: 1.82와 but 1.81과, 2가 but 3이.
A value quoted with {eval}`...` is computed when the notebook runs (timings change on every
run), an equation reference {eq}`...` is numbered by the build (it moves when an equation is
added before it), and a ``{name}`` field of a caption or checker text is filled in at run
time. So a translation must not put a sound-dependent particle right after one: it would be
right only for today's value. It puts a noun after the value (값, 배, 개, 초), uses the copula
written in full (이다, 이고, 이며, 이어서, 이었다: right after any noun), or says the sentence
another way.

The rule, kept simple:

- After a value (an {eval} or {eq} role in any msgstr; a ``{name}`` field in a msgstr with a
  msgctxt, i.e. a ``str.format`` template) and any closing ``*``, quotes or ``)``, the Hangul
  that follows must not start with a sound-dependent particle: 와/과, 이/가, 은/는, 을/를,
  로/으로, 였(다), 야/이야, 라/이라 (라고, 라는, 라면), 랑/이랑, 나/이나, nor with a copula
  shortened after a vowel (다, 고, 며, 면, 여서). 이 followed by more Hangul is the full copula
  (이다, 이고, 이었다, 이므로) or a noun (이상), and allowed; a few counters and units that begin
  like a particle (3가지, 0.5라디안) are allowed.
- Korean reads a particle after a parenthesis as belonging to the word before the
  parenthesis (헤드 8(0.06)은: 은 goes with 8), so after a ``)`` the word before its ``(``
  decides: flagged only when that is a value too ({eval}`slope`(표준 오차 …)였다).
- Every value counts, even one that today ends in a fixed word (a figure reference, "그림 4.1",
  still ends in a number; ``True`` happens to end in a vowel): no list of safe expressions to
  keep up to date.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attn_book import i18n  # noqa: E402

KOREAN_PO = sorted((i18n.LOCALE / "ko" / "LC_MESSAGES").glob("*.po"))

ROLE = re.compile(r"\{(?:eval|eq)\}`[^`]+`")
FIELD = re.compile(r"(?<!\{)\{[A-Za-z_]\w*(?:\.\w+|\[\w+\])*(?:![rsa])?(?::[^{}]*)?\}(?!\})")
VALUE = "\0"  # what a value is replaced with while the text around it is read
HANGUL = r"\uac00-\ud7a3"
CLOSERS = re.compile(r"[)\]*\"'”’]*")
DEPENDENT = re.compile(
    rf"(?:와|과|가|은|는|을|를|으?로|였|여서|이?야|이?라|이?랑|이?나|다|고|며|면"
    rf"|이(?![{HANGUL}]))"
)
#: Words after a number that begin like a particle but are counters, units or nouns.
NOT_PARTICLES = ("가지", "가량", "나노", "라디안")


def values(entry):
    """The values of a catalog entry's Korean: {eval} and {eq} roles, and ``{name}`` fields if the
    entry is a ``str.format`` template (it has a context)."""
    patterns = [ROLE, FIELD] if entry["context"] else [ROLE]
    return re.compile("|".join(p.pattern for p in patterns))


def particles_after_values(text, value):
    """``[(the value, the text after it)]`` where a sound-dependent particle follows ``value``
    (a compiled pattern) in ``text``."""
    found = value.findall(text)
    masked = value.sub(VALUE, text)
    wrong = []
    for index, match in enumerate(re.finditer(VALUE, masked)):
        end = CLOSERS.match(masked, match.end()).end()
        after = masked[end : end + 12]
        word = re.match(rf"[{HANGUL}]+", after)
        if not word or not DEPENDENT.match(word[0]) or word[0].startswith(NOT_PARTICLES):
            continue
        owner = index
        closing = masked[match.end() : end]
        if ")" in closing:  # the particle goes with the word before the matching "("
            start = opening(masked, match.end() + closing.rindex(")"))
            if start is None or start == 0 or masked[start - 1] != VALUE:
                continue
            owner = masked[:start].count(VALUE) - 1
        shown = masked[end : end + 12].replace(VALUE, "…")
        wrong.append((found[owner], (closing + shown).splitlines()[0]))
    return wrong


def opening(text, close):
    """The index of the ``(`` that the ``)`` at ``close`` closes (None if there is none)."""
    depth = 0
    for i in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return None


def test_the_rule_on_examples():
    role, field = ROLE, FIELD
    flagged = [
        ("기울기는 {eval}`dec(x)`였다.", role),
        ("벡터 {eval}`v`와 같다.", role),
        ("{eval}`figures.ref('fig-a')`가 보여 준다.", role),
        ("이것은 식 {eq}`eq-ch4-gradient`와 같다.", role),
        ("{eval}`a`(표준 오차 {eval}`b`)였다.", role),
        ("**{eval}`a`**는 크다.", role),
        ("값은 {x}로 줄어든다.", field),
        ("적어도 {asked}다.", field),
        ("{n}이 남는다.", field),
        ("점수 {s:.2f}을 넘는다.", field),
    ]
    for text, pattern in flagged:
        assert particles_after_values(text, pattern), text
    fine = [
        ("기울기는 {eval}`dec(x)`이었다.", role),
        ("{eval}`n`개와 {eval}`m`배를 {eval}`k`초에 쓴다.", role),
        ("값은 {eval}`x`이고, {eval}`y`이며, {eval}`z`이므로 {eval}`w` 이상이다.", role),
        ("헤드 8({eval}`plain(s[7])`)은 거의 깎지 않는다.", role),
        ("사인파 인코딩(식 {eq}`eq-ch6-pos-sinusoidal`)은", role),
        ("회상률\n({eval}`dec(r)`)과 비슷하다.", role),
        ("{eval}`x`의 {eval}`y`에서 {eval}`z`까지 {eval}`u`보다 {eval}`v`도", role),
        ("{eval}`n`가지 방법, {eval}`a`라디안을", role),
        ("{x}와 같다.", role),  # a field counts only in a template
        ("{{x}}와 {x}이다", field),
    ]
    for text, pattern in fine:
        assert not particles_after_values(text, pattern), text
    assert particles_after_values("{eval}`a`(오차 {eval}`b`)였다.", role) == [
        ("{eval}`a`", ")였다.")
    ]


@pytest.mark.parametrize("path", KOREAN_PO, ids=lambda p: p.stem)
def test_no_sound_dependent_particle_follows_a_computed_value(path):
    wrong = [
        f"{path.name}: {expression} {after!r}"
        for entry in i18n.po_entries(path.read_text("utf-8"))
        for expression, after in particles_after_values(entry["string"], values(entry))
    ]
    assert wrong == [], "\n".join(wrong)
