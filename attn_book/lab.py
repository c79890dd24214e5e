"""How a chapter is saved, the same from JupyterLab and from ``tools/sync_chapters.py``.

A reader who opens a chapter in JupyterLab and saves it without an edit should change no
file. Two things differ otherwise between what the sync tool writes and what Lab writes:

- Lab adds the running kernel's ``language_info`` (with the Python version of the reader's
  machine); neither writer keeps it, since the kernelspec says all the book needs;
- Lab's JavaScript writes a widget state's whole floats as integers (``1.0`` -> ``1``); the
  sync tool writes them the same way.

``make lab`` installs :func:`pre_save_hook` as the server's ``pre_save_hook``.

Examples
--------
>>> nb = {"metadata": {"language_info": {"version": "3.11"}, "widgets": {"s": [1.0, 0.5]}}}
>>> normalise(nb)["metadata"]
{'widgets': {'s': [1, 0.5]}}
"""

from __future__ import annotations

__all__ = ["KERNELSPEC", "normalise", "pre_save_hook"]

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _whole_floats_as_ints(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_floats_as_ints(v) for v in value]
    return value


def normalise(notebook):
    """Drop ``language_info`` and write the widget state as JavaScript would; in place."""
    metadata = notebook["metadata"]
    metadata.pop("language_info", None)
    if "widgets" in metadata:
        metadata["widgets"] = _whole_floats_as_ints(metadata["widgets"])
    return notebook


def pre_save_hook(model, **kwargs):
    """Jupyter server hook: normalise a notebook before it is written."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        normalise(model["content"])
