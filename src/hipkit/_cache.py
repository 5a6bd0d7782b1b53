"""The on-disk build cache: content-addressed, atomic, safe across processes.

An entry is a directory named by the hash of everything that determines its
contents (source, options, compiler version, target).  It is built in a
private temporary directory beside it and renamed into place, so a reader
never sees a partial entry; when several processes build the same entry at
once, the first rename wins and the others discard their copy.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from . import config


def digest(parts: Iterable[str | bytes]) -> str:
    """A stable hash of ``parts`` (each length-prefixed, so boundaries count)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:32]


def entry(kind: str, key: str, build: Callable[[Path], None]) -> Path:
    """Return the cache directory ``<cache>/<kind>/<key>``, building it if missing.

    ``build(tmpdir)`` writes the entry's files into ``tmpdir``; if it raises,
    nothing is left behind and the exception propagates.
    """
    final = config.cache_dir() / kind / key
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=final.parent))
    try:
        build(tmp)
        try:
            os.rename(tmp, final)
        except OSError:
            if not final.is_dir():  # not a lost race: a real failure
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final
