"""The repository and Binder buttons, and no Thebe.

The repository and Binder buttons point at the repository named by the environment variable
``ATTN_REPOSITORY_URL`` (a fork sets it to its own ``https://github.com/OWNER/NAME``); unset,
the site shows neither, so no button leads to a repository that does not exist.

sphinx-thebe, which jupyter-book always loads, adds its configuration script to every page
(twice: Sphinx 7.4 keeps the script both as registered, ``''``, and as added to the
builder, ``None``, which do not compare equal; the second ``const THEBE_JS_URL`` throws).
The site has no Thebe button, so those handlers are disconnected unless
``launch_buttons.thebe`` is on. Loaded from ``_config.yml`` (``sphinx.local_extensions``).
"""

from __future__ import annotations

import os
import re

from sphinx.errors import ConfigError

REPOSITORY_VARIABLE = "ATTN_REPOSITORY_URL"
GITHUB_REPOSITORY = re.compile(r"https://github\.com/[A-Za-z0-9-]+/[A-Za-z0-9._-]+")


def repository_options(theme_options, url):
    """``theme_options`` with the repository and Binder buttons on for ``url``, off without.

    Parameters
    ----------
    theme_options : dict
        sphinx-book-theme's ``html_theme_options`` as jupyter-book made them.
    url : str or None
        ``https://github.com/OWNER/NAME`` (Binder builds from GitHub), or None/"" for none.

    Returns
    -------
    dict
        A new dict; ``theme_options`` is not modified.
    """
    launch = dict(theme_options.get("launch_buttons") or {})
    if not url:
        launch["binderhub_url"] = ""
        return {**theme_options, "use_repository_button": False, "launch_buttons": launch}
    url = url.strip().rstrip("/")
    if not GITHUB_REPOSITORY.fullmatch(url):
        raise ConfigError(
            f"{REPOSITORY_VARIABLE}={url!r} is not a GitHub repository URL: use "
            "https://github.com/OWNER/NAME, or unset it to build a site without repository "
            "and Binder buttons"
        )
    return {
        **theme_options,
        "repository_url": url,
        "use_repository_button": True,
        "launch_buttons": launch,
    }


def set_repository(app, config):
    """Apply ``ATTN_REPOSITORY_URL`` (``config-inited``)."""
    url = os.environ.get(REPOSITORY_VARIABLE)
    config.html_theme_options = repository_options(config.html_theme_options, url)


def drop_thebe(app, config):
    """Disconnect sphinx-thebe's page handlers when the site has no Thebe button."""
    if (config.html_theme_options.get("launch_buttons") or {}).get("thebe"):
        return
    for event in ("env-before-read-docs", "doctree-resolved"):
        for listener in list(app.events.listeners.get(event, [])):
            if getattr(listener.handler, "__module__", "") == "sphinx_thebe":
                app.disconnect(listener.id)
    app.registry.css_files = [c for c in app.registry.css_files if c[0] != "sphinx-thebe.css"]


def setup(app):
    app.connect("config-inited", set_repository)
    app.connect("config-inited", drop_thebe)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
