"""Stream the elements of a file's top-level JSON array (``.json`` or ``.json.gz``) in bounded memory.

Released benchmark files are often one large JSON array (LongMemEval M is about 2.7 GB; a BEAM 10M chat
is a list of batches). :func:`iter_raw_records` reads the file in 1 MiB chunks and yields each element
as it is completed, so memory holds one element and one chunk at a time, never the whole file.
"""

from __future__ import annotations

import codecs
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from memsuite.memory_systems.errors import DatasetError

_CHUNK_BYTES = 1 << 20


def open_binary(path: Path) -> IO[bytes]:
    """``path`` opened for reading bytes, uncompressed when its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def iter_raw_records(path: Path) -> Iterator[tuple[int, int, bytes, Any]]:
    """``(index, byte offset, record bytes, parsed record)`` for each element of the file's top-level
    array; the offset is in the (uncompressed) stream.

    Raises:
        DatasetError: The file is not a JSON array, or it ends inside a record (truncated), naming the
            file and the record's index.
    """
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    buffer, position, index, started, ended, eof = "", 0, 0, False, False, False
    dropped = 0  # bytes of the stream before ``buffer``
    with open_binary(path) as handle:

        def more() -> bool:
            nonlocal buffer, eof
            try:
                chunk = handle.read(_CHUNK_BYTES)
            except (OSError, EOFError) as exc:  # a cut gzip stream
                raise DatasetError(f"{path}: record {index}: the file ends early ({exc})") from exc
            if not chunk:
                eof = True
                buffer += utf8.decode(b"", final=True)
                return False
            buffer += utf8.decode(chunk)
            return True

        while True:
            rest = buffer[position:]
            position += len(rest) - len(rest.lstrip())
            if position >= len(buffer):
                dropped += len(buffer.encode("utf-8"))
                buffer, position = "", 0
                if eof or not more():
                    break
                continue
            char = buffer[position]
            if not started:
                if char != "[":
                    raise DatasetError(f"{path}: not a JSON array of records")
                started, position = True, position + 1
                continue
            if char == "]":
                ended = True
                break
            if char == ",":
                position += 1
                continue
            try:
                record, end = decoder.raw_decode(buffer, position)
            except json.JSONDecodeError as exc:
                if eof or not more():
                    raise DatasetError(
                        f"{path}: record {index}: truncated or invalid JSON ({exc.msg})"
                    ) from exc
                continue
            head = len(buffer[:position].encode("utf-8"))
            raw = buffer[position:end].encode("utf-8")
            yield index, dropped + head, raw, record
            index += 1
            dropped += head + len(raw)
            buffer, position = buffer[end:], 0
    if not started or not ended:
        raise DatasetError(f"{path}: record {index}: truncated JSON (the array is not closed)")
