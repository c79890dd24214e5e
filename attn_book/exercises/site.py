"""What the static site's answer boxes need: one JSON spec per exercise, made at build time.

The site has no kernel, but a by-hand or predict-then-run exercise needs none: its expected
value, its tolerance and each named slip's value are known once the inputs are. This module
turns every exercise of :func:`~attn_book.exercises.all_exercises` into a dict that
``site/static/attn-answers.js`` reads to give the same verdict and message as
:meth:`Exercise.check`, and writes beside them the catalog's engine and site texts, so the
box speaks the catalog's language:

- ``"number"``: the expected array, ``atol``/``rtol``, the praise, and the diagnoses in the
  order the checker tries them, each either ``values`` (the slip, recomputed here from the
  inputs) or a ``rule`` of the fixed generic set (:data:`.diagnose.NUMBER_RULES`, ported
  once in the JavaScript) with its arguments, and its text;
- ``"choice"``: the options and the checker's own feedback for each option, and for none;
- ``"kernel"``: everything else (write-the-function, find-the-bug, a design judged by what it
  computes), with ``why`` (for the reader).

Arrays are ``{"shape": [...], "data": [flat, C order]}``; NaN and infinities become ``null``.

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
from .records import Case, Trial

__all__ = ["site_spec", "site_specs", "specs_script"]


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
            "verdicts": {opt: _line(ex.check(opt)) for opt in ex.options},
            "unanswered": _line(ex.check(...)),
        }
    if isinstance(ex, NumberExercise):
        return _number_spec(ex)
    return _kernel(ex)


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
    messages = {**catalog()["engine"], **catalog()["site"]}
    text_ = json.dumps(
        {"messages": messages, "exercises": specs}, ensure_ascii=False, allow_nan=False
    )
    return f"window.ATTN_EXERCISES = {text_};\n"
