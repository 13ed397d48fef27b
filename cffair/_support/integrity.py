"""How a damaged or edited artefact is told from an intact one: a checksum of every member.

torch's zip reader does not check the CRC-32s of the records it reads, so a flipped byte in a
saved weight used to load as another weight, silently. Every artefact of :mod:`cffair._support.artefacts`
is therefore *sealed* when written (:func:`seal`): its payload carries the SHA-256 of each member
(:func:`artefact_checksums`: each header field, the metadata string and each of its top-level
entries, each tensor and number of the state dicts, by its path such as
``tensors/model/0.weight``) and the SHA-256 of that table. On reading, :func:`checksum_problem`
recomputes them from what was loaded and names the first member that differs, and
:func:`zip_damage` reads every zip record to check its CRC-32 (which names the damaged record
when torch cannot read the file at all).

A checksum detects damage and careless edits, not a deliberate forgery: whoever edits a file can
seal it again. What a forged file says is checked against itself by its loader
(:func:`cffair.learners.load_model` validates a model's metadata against its weights).

This module only hashes bytes: it cannot change a number, hence ``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = ["SEAL_KEYS", "artefact_checksums", "checksum_problem", "seal", "table_digest", "zip_damage"]

import hashlib
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cffair.errors import ArtefactError

FINGERPRINT_EXEMPT = True  # hashes bytes; changes no number

#: The payload keys that hold the checksums (:func:`seal`); every other key is a checksummed member.
SEAL_KEYS = ("checksums", "checksums_digest")


def _leaf_bytes(value: Any) -> bytes:
    """The bytes a member's checksum covers: a tensor's dtype, shape and raw values; a plain value's type and repr."""
    import torch

    if isinstance(value, torch.Tensor):
        flat = value.detach().cpu().contiguous().reshape(-1)
        head = f"tensor {flat.dtype} {tuple(value.shape)}\x00".encode()
        return head + flat.view(torch.uint8).numpy().tobytes()
    return f"{type(value).__name__} {value!r}".encode("utf-8", "backslashreplace")


def artefact_checksums(payload: Mapping[str, Any]) -> dict[str, str]:
    """The SHA-256 of every member of an artefact's payload, by member name.

    A member is each leaf of the payload (a header field such as ``format_version``, the
    metadata string ``meta``, each tensor or number in ``tensors``, named by its path:
    ``tensors/model/0.weight``) and each top-level entry of the metadata (``meta/encoder``:
    its JSON, so that a message can say which part was edited). A leaf's hash covers its path
    with the type of each container on it, its type, and its value (a tensor's dtype, shape and
    bytes), so a value moved, retyped or reshaped changes it.

    Raises:
        ArtefactError: (a ``ValueError``) the metadata is not a JSON object (the file is damaged).
    """
    out: dict[str, str] = {}

    def add(name: str, typed_path: tuple[Any, ...], data: bytes) -> None:
        unique, n = name, 1
        while unique in out:  # two keys that print alike (0 and "0"): keep both
            n += 1
            unique = f"{name}~{n}"
        out[unique] = hashlib.sha256(repr(typed_path).encode("utf-8", "backslashreplace") + b"\x00" + data).hexdigest()

    def walk(value: Any, names: tuple[str, ...], typed_path: tuple[Any, ...]) -> None:
        if isinstance(value, (dict, list, tuple)):
            kind = "dict" if isinstance(value, dict) else type(value).__name__  # an OrderedDict state dict too
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            if not items:
                add("/".join(names), typed_path, f"empty {kind}".encode())
            for key, item in items:
                walk(item, (*names, str(key)), (*typed_path, (kind, key)))
        else:
            add("/".join(names), typed_path, _leaf_bytes(value))

    walk({k: v for k, v in payload.items() if k not in SEAL_KEYS}, (), ())
    meta = json.loads(payload["meta"]) if isinstance(payload.get("meta"), str) else None
    if not isinstance(meta, dict):
        raise ArtefactError(
            "its metadata ('meta') is not a JSON object: the file is damaged or was not written by cffair"
        )
    for key, value in meta.items():
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=True)
        add(f"meta/{key}", ("meta entry", key), text.encode())
    return out


def table_digest(table: Mapping[str, str]) -> str:
    """The SHA-256 of a table of checksums (what ``checksums_digest`` holds)."""
    return hashlib.sha256(json.dumps(sorted(table.items()), ensure_ascii=True).encode()).hexdigest()


def seal(payload: Mapping[str, Any]) -> dict[str, Any]:
    """``payload`` with the checksums of its members (:func:`artefact_checksums`) and of their table added.

    :func:`write_artefact` seals every artefact it writes. Sealing an edited payload again is
    what makes an edit pass the checksums: it is what tests do to reach the validation behind them.
    """
    body = {k: v for k, v in payload.items() if k not in SEAL_KEYS}
    table = artefact_checksums(body)
    return {**body, "checksums": table, "checksums_digest": table_digest(table)}


def zip_damage(path: Path) -> str | None:
    """Words naming the first record of a zip file whose bytes fail their CRC-32 (``None``: all
    pass, or it is not a zip file). torch's reader never checks these."""
    if not zipfile.is_zipfile(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.CRC == 0:  # written without CRC-32s (torch.serialization.set_crc32_options(False))
                    continue
                with archive.open(info) as record:
                    while record.read(1 << 20):  # reading to the end checks the CRC-32
                        pass
    except Exception as exc:  # BadZipFile (a bad CRC-32, a renamed record), zlib.error, EOFError, ...
        return "its zip records fail their checks: " + " ".join(f"{type(exc).__name__}: {exc}".split())[:160]
    return None


def checksum_problem(payload: Mapping[str, Any]) -> str | None:
    """What fails the checksums sealed into ``payload``, in words (``None``: every member matches).

    The words name the first failing member (``its member 'meta/classes' does not match the
    checksum written with it``), a metadata entry before the whole metadata string, or the
    table of checksums itself when that is what was damaged.
    """
    table = payload.get("checksums")
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        return "its table of checksums is unreadable"
    if payload.get("checksums_digest") != table_digest(table):
        return "its table of checksums does not match its own checksum"
    try:
        current = artefact_checksums(payload)
    except Exception as exc:  # a member that cannot be hashed (a crafted tensor type), metadata that is not JSON
        return "a member cannot be checked (" + " ".join(f"{type(exc).__name__}: {exc}".split())[:120] + ")"
    found = [
        (n, "does not match the checksum written with it") for n in table if n in current and current[n] != table[n]
    ]
    found += [(n, "is missing") for n in table if n not in current]
    found += [(n, "was not written with it") for n in current if n not in table]
    if not found:
        return None
    found.sort(key=lambda item: item[0] == "meta")  # a metadata entry names the edit better than the whole string
    name, why = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"its member {name!r} {why}{more}"
