"""Reading import files: paths or uploaded files in, (name, text) out, with the encoding checked
and line splitting that keeps every character a segment may legitimately contain."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from campaigns.importers.problems import ProblemList

UTF8_BOM = b"\xef\xbb\xbf"

# A segment longer than this is almost always a broken file (a lost line break, an unclosed
# quote swallowing the rest of the file), not a sentence.
MAX_TEXT_CHARS = 10_000
# Model limits (Document.external_id, Segment.external_id, System.name).
MAX_ID_CHARS = 200

FileLike = str | os.PathLike[str] | IO[bytes] | Any


@dataclass(frozen=True)
class InputFile:
    """One input file read into memory: its display name and its bytes."""

    name: str
    data: bytes


def file_name(file: FileLike) -> str:
    """The name shown in problems: the base name of a path or of an uploaded file's name."""
    if isinstance(file, str | os.PathLike):
        return Path(file).name
    name = getattr(file, "name", None) or "upload"
    return Path(str(name)).name


def read_input(file: FileLike, name: str | None = None) -> InputFile:
    """Read a path or a binary file object (a Django UploadedFile, an open file, BytesIO)."""
    display = name or file_name(file)
    if isinstance(file, str | os.PathLike):
        return InputFile(display, Path(file).read_bytes())
    if hasattr(file, "seek"):
        try:
            file.seek(0)
        except (OSError, ValueError):
            pass
    if hasattr(file, "chunks"):  # Django UploadedFile: avoids one huge read of a temp file
        data = b"".join(file.chunks())
    else:
        data = file.read()
    if isinstance(data, str):
        # A text-mode file: take it as given (its encoding was the opener's business).
        data = data.encode("utf-8")
    return InputFile(display, data)


def decode(input_file: InputFile, problems: ProblemList) -> str | None:
    """The file's text, or None after reporting the first byte that is not UTF-8.

    A UTF-8 byte-order mark at the start is dropped. The line of a bad byte is counted in the
    raw bytes, so it is the line a text editor shows.
    """
    data = input_file.data
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        problems.add(
            input_file.name,
            1,
            None,
            "not UTF-8 text: the file starts with a UTF-16 byte-order mark; save it as UTF-8 "
            "and import it again",
        )
        return None
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
        offset = len(UTF8_BOM)
    else:
        offset = 0
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raw = input_file.data
        position = error.start + offset
        line = raw.count(b"\n", 0, position) + 1
        line_start = raw.rfind(b"\n", 0, position) + 1
        column = position - line_start + 1
        bad = raw[position : position + 1].hex().upper()
        problems.add(
            input_file.name,
            line,
            None,
            f"not UTF-8 text: byte 0x{bad} at byte {column} of the line cannot be decoded; "
            "save the file as UTF-8 and import it again",
        )
        return None


def split_lines(text: str) -> list[str]:
    """Split on '\\n' only, drop one '\\r' before it, and do not count the final line break.

    str.splitlines() would also split on \\x0b, \\x0c, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029,
    which occur inside real WMT segments; a line here ends only at '\\n'. A lone '\\r' inside a
    line stays part of the text.
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the line break at the end of the last line
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def is_blank(value: str | None) -> bool:
    """Empty or whitespace only: such a field counts as empty (it is not stripped otherwise)."""
    return value is None or not value.strip()
