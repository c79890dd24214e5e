"""How a chapter is saved, the same from JupyterLab and from ``tools/sync_chapters.py``.

A reader who opens a chapter in JupyterLab and saves it without an edit should change no
file. Two things differ otherwise between what the sync tool writes and what Lab writes:

- Lab adds the running kernel's ``language_info`` (with the Python version of the reader's
  machine); neither writer keeps it, since the kernelspec says all the book needs;
- Lab's JavaScript writes a widget state's whole floats as integers (``1.0`` -> ``1``); the
  sync tool writes them the same way.

The package makes every Jupyter front end started in its environment (``jupyter lab``,
``jupyter notebook``, ``make lab``) read the book as ``make lab`` always did: pip installs
``etc/jupyter/jupyter_server_config.d/attn-book.json`` (the repository's ``jupyter-config/``),
which turns on this module as a server extension and JupyterLab's ``custom.css``, and
``share/jupyter/lab/settings/overrides.d/attn-book.json`` (no news, ``.py`` opens as a
notebook). The extension registers :func:`pre_save_hook` with the server's contents manager
(:func:`_start_jupyter_server_extension`) and serves
``attn_book/lab_custom/custom.css`` (the book's Hangul font, behind JupyterLab's own) at
``/custom/custom.css``, after a reader's own ``custom/`` folder in their Jupyter config.

Examples
--------
>>> nb = {"metadata": {"language_info": {"version": "3.11"}, "widgets": {"s": [1.0, 0.5]}}}
>>> normalise(nb)["metadata"]
{'widgets': {'s': [1, 0.5]}}
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["CUSTOM_CSS_DIR", "KERNELSPEC", "normalise", "pre_save_hook"]

CUSTOM_CSS_DIR = str(Path(__file__).resolve().parent / "lab_custom")
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


def _jupyter_server_extension_points():
    """The server extension this module is (``jupyter_server_config.d/attn-book.json``)."""
    return [{"module": "attn_book.jupyter_server_extension"}]


def _link_jupyter_server_extension(serverapp):
    """Turn on JupyterLab's ``custom.css`` link, unless the server's config sets it.

    A ``jupyter_server_config.d/*.json`` file is read for ``jpserver_extensions`` only, not as
    config; this runs before JupyterLab links (extensions link in alphabetical order), and
    JupyterLab reads its traits from the server's config when it links.
    """
    if "custom_css" not in serverapp.config.LabApp:
        serverapp.config.LabApp.custom_css = True


def _load_jupyter_server_extension(serverapp):
    """Serve the book's ``custom.css`` behind the reader's.

    JupyterLab serves ``/custom/`` from the web application's ``static_custom_path``, a list
    no JSON config can extend with a folder inside this package; Notebook 7 serves
    ``/custom/custom.css`` from the reader's config folder or its own empty placeholder. So
    the folder is appended to that list, and ``/custom/custom.css`` is served from it by a
    handler of this extension, which the server loads (alphabetically) before both.
    """
    from jupyter_server.base.handlers import FileFindHandler
    from jupyter_server.utils import url_path_join

    folders = serverapp.web_app.settings.setdefault("static_custom_path", [])
    if CUSTOM_CSS_DIR not in folders:
        folders.append(CUSTOM_CSS_DIR)
    route = url_path_join(serverapp.web_app.settings["base_url"], r"/custom/(custom\.css)")
    readers = str(Path(serverapp.config_dir) / "custom")  # a reader's own custom.css first
    options = {"path": [readers, CUSTOM_CSS_DIR], "no_cache_paths": ["/"]}
    serverapp.web_app.add_handlers(".*$", [(route, FileFindHandler, options)])
    serverapp.log.info("attn_book: custom.css from %s", options["path"])


async def _start_jupyter_server_extension(serverapp):
    """Register :func:`pre_save_hook` once every extension is loaded: jupytext's replaces
    the server's contents manager with its own when it loads, after this one."""
    managers = {id(m): m for m in (serverapp.contents_manager, serverapp.web_app.settings.get(
        "contents_manager", serverapp.contents_manager))}  # fmt: skip
    for manager in managers.values():
        if pre_save_hook not in getattr(manager, "_pre_save_hooks", []):
            manager.register_pre_save_hook(pre_save_hook)
    serverapp.log.info("attn_book: pre-save hook on %s", type(serverapp.contents_manager))
