"""What the static site's answer boxes need: one JSON spec per exercise, made at build time.

The site has no kernel, but a by-hand or predict-then-run exercise needs none: its expected
value, its tolerance and each named slip's value are known once the inputs are. This module
turns every exercise of :func:`~attn_book.exercises.all_exercises` into a dict that
``site/static/attn-answers.js`` reads to give the same verdict and message as
:meth:`Exercise.check`, and writes beside them the catalog's engine and site texts, so the
box speaks the catalog's language:

- ``"number"``: the expected array, ``atol``/``rtol`` (and ``integer`` for whole numbers),
  the praise, and the diagnoses in the order the checker tries them, each either ``values``
  (the slip, recomputed here from the inputs) or a ``rule`` of the fixed generic set
  (:data:`.diagnose.NUMBER_RULES`, ported once in the JavaScript) with its arguments, and its
  text;
- ``"choice"``: the options, the words the box shows for each (``labels``: the catalog's
  ``option-<option>`` in the page's language, else the option) and the checker's own feedback
  for each option, and for none;
- ``"kernel"``: everything else (write-the-function, find-the-bug, a design judged by what it
  computes), with ``why`` (for the reader).

Arrays are ``{"shape": [...], "data": [flat, C order]}``; NaN and infinities become ``null``.

The box speaks the site's language: where the checker speaks of the notebook (replace the
``...``, run the cell, not a ``str``), :func:`site_verdict` says what the box says instead,
in the catalog's ``site/`` texts; the page gets only the engine texts the box uses
(:data:`SITE_ENGINE_TEXTS`).

Examples
--------
>>> from attn_book.exercises import ch04_worked_example as ch4
>>> spec = site_spec(ch4.output_by_hand)
>>> spec["kind"], spec["expected"]["shape"], [d["name"] for d in spec["diagnoses"]][:2]
('number', [2], ['weights-not-output', 'forgot-scale'])
>>> site_spec(ch4.my_attention)["kind"]
'kernel'
"""

from __future__ import annotations

import json
import math

import numpy as np

from . import diagnose
from .catalog import catalog, text
from .kinds import ChoiceExercise, NumberExercise, all_exercises
from .records import Case, Feedback, Trial

__all__ = ["SITE_ENGINE_TEXTS", "site_spec", "site_specs", "site_verdict", "specs_script"]

#: The checker's own texts (``engine/<key>``) that the answer box shows or fills in.
SITE_ENGINE_TEXTS = (
    *("icon-correct", "icon-wrong", "icon-unanswered", "fallback", "subject-answer"),
    *("ragged", "not-finite-entries", "label-None", "label-NaN", "label-infinite"),
    *("not-whole", "not-whole-1", "wrong-count", "wrong-count-1", "wrong-count-shape"),
    *("rounding", "rounding-1", "wrong-order", "not-summing-to-1", "not-summing-to-1-1"),
    *("constant-factor", "constant-factor-named", "constant-factor-sign", "factor-2"),
    *("fewer-decimals", "fewer-decimals-0", "fewer-decimals-1"),
    *("factor-0.5", "factor-sqrt2"),
    *("factor-1/sqrt2", "factor--1", "other", "other-1-too-large", "other-1-too-small"),
    *("other-1-too-large-whole", "other-1-too-small-whole"),
    *("other-too-large", "other-too-small", "other-near", "other-right-1", "other-right-n"),
    *("place-number", "place-entry", "place-cell", "place-index", "place-row", "more"),
    *("entries", "is", "are", "and", "list-separator", "place-separator", "clause-separator"),
)


def _array(value):
    a = np.asarray(value, dtype=float)
    data = [float(x) if math.isfinite(x) else None for x in a.ravel().tolist()]
    return {"shape": list(a.shape), "data": data}


def _line(feedback):
    return {"status": feedback.status, "message": feedback.message, "diagnosis": feedback.diagnosis}


def _number_spec(ex):
    expected = ex.expected()
    trial = Trial(Case("your answer", ex._inputs), expected, None, None, ex.rtol, ex.atol)
    diagnoses = []
    for diag in ex.diagnoses + ex._generic():
        if diag.site is None:  # a slip the box cannot recompute: the kernel's check decides
            return {**_kernel(ex), "missing": f"the diagnosis {diag.name!r} has no site"}
        try:
            site = dict(diag.site(trial))
        except Exception:  # the checker's diagnosis would not fire either
            continue
        if "values" in site:
            site["values"] = [_array(v) for v in site["values"]]
        own = {**catalog()["shared"], **catalog()["exercises"].get(ex.id, {})}.get(diag.name)
        if diag.params is None:
            site["message"] = " ".join(text(diag.name, ex.id).split())
        elif own is not None:  # the exercise's own template, filled by the rule's parameters
            site["template"] = own
        diagnoses.append({"name": diag.name, **site})
    return {
        "kind": "number",
        "id": ex.id,
        "title": ex.title,
        "expected": _array(expected),
        "integer": ex.integer,
        "atol": ex.atol,
        "rtol": ex.rtol,
        "tolerance": diagnose.tolerance_text(ex.atol, ex.rtol),
        "correct": ex._praise(),
        "diagnoses": diagnoses,
    }


def site_spec(ex):
    """The JSON-able spec of one exercise for the site's answer box (see the module doc)."""
    if isinstance(ex, ChoiceExercise):
        return {
            "kind": "choice",
            "id": ex.id,
            "title": ex.title,
            "options": list(ex.options),
            "labels": ex.option_words(),
            "verdicts": {opt: _line(site_verdict(ex, opt)) for opt in ex.options},
            "unanswered": _line(site_verdict(ex, ...)),
        }
    if isinstance(ex, NumberExercise):
        return _number_spec(ex)
    return _kernel(ex)


def site_verdict(ex, answer):
    """What the answer box says for ``answer``: the checker's verdict, in the site's words where
    the checker speaks of the notebook.

    An empty box asks for an answer (the checker asks to replace the ``...`` and run the cell);
    text that is not numbers asks for a number (the checker names the Python type it got); a
    right choice whose follow-up is "run the next cell" points at the output below it, which
    the page shows. A decimal comma is the box's own (``attn-answers.js``).

    Examples
    --------
    >>> from attn_book.exercises import ch01_dot_product as ch1
    >>> site_verdict(ch1.cosine_by_hand, ...).message
    'type your answer in the box, then press Check.'
    >>> site_verdict(ch1.cosine_by_hand, "abc").message[:22]
    'that is not a number: '
    """
    feedback = ex.check(answer)
    words = catalog()["site"]
    if feedback.status == "unanswered":
        key = "unanswered-choice" if isinstance(ex, ChoiceExercise) else "unanswered"
        return Feedback("unanswered", words[key], feedback.diagnosis)
    if isinstance(ex, NumberExercise) and isinstance(answer, str):
        return Feedback("wrong", words["not-a-number"], "not-numeric")
    if isinstance(ex, ChoiceExercise) and feedback.ok and "follow-up" in _own(ex):
        return Feedback("correct", words["praise-shown-below"].format(title=ex.title))
    return feedback


def _own(ex):
    return catalog()["exercises"].get(ex.id, {})


def _kernel(ex):
    kinds = catalog()["site"]
    why = kinds.get(f"why-{ex.kind}", kinds["why-other"])
    return {"kind": "kernel", "id": ex.id, "title": ex.title, "exercise": ex.kind, "why": why}


def site_specs(exercises=None):
    """``{id: spec}`` for every exercise (default: :func:`all_exercises`), in book order."""
    return {ex.id: site_spec(ex) for ex in (all_exercises() if exercises is None else exercises)}


def specs_script(specs=None):
    """The specs and the catalog's engine and site texts, as a script that sets
    ``window.ATTN_EXERCISES`` (it loads from file:// too)."""
    specs = site_specs() if specs is None else specs
    engine = catalog()["engine"]
    messages = {**{k: engine[k] for k in SITE_ENGINE_TEXTS}, **catalog()["site"]}
    text_ = json.dumps(
        {"messages": messages, "exercises": specs}, ensure_ascii=False, allow_nan=False
    )
    return f"window.ATTN_EXERCISES = {text_};\n"
