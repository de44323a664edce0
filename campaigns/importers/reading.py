"""Reading import files: paths or uploaded files in, lines of text out, with the encoding checked
(UTF-8, no NUL byte: PostgreSQL cannot store one) and line splitting that keeps every character
a segment may legitimately contain.

Files are read line by line, never whole (issue 11: a 200 MB import took 7-12 times its size
in memory): ``scan_text()`` checks a file in one pass, ``iter_lines()`` then gives its lines
one at a time, as often as needed (a checked import reads its file again when written).
Uploads Django spooled to disk are read from their temporary file."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
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
    """One input file: its display name and where its bytes are.

    ``source`` is the bytes themselves, a path, or a binary file object (an upload); a path
    or a file is read line by line (``open()``, ``scan_text()``, ``iter_lines()``), so that a
    200 MB file is never held in memory whole, nor its text, nor a list of its lines.
    ``data`` reads it all (for the JSON formats, which are parsed whole).
    """

    name: str
    source: Any

    def open(self) -> IO[bytes]:
        """A binary stream of the file from its start (closed by the caller)."""
        source = self.source
        if isinstance(source, bytes | bytearray | memoryview):
            return io.BytesIO(bytes(source))
        if isinstance(source, str | os.PathLike):
            return Path(source).open("rb")
        try:
            source.seek(0)
        except (AttributeError, OSError, ValueError):
            pass
        return io.BufferedReader(_Unclosed(source), buffer_size=1 << 16)

    @property
    def data(self) -> bytes:
        if isinstance(self.source, bytes):
            return self.source
        with self.open() as stream:
            return stream.read()


class _Unclosed(io.RawIOBase):
    """A caller's file object seen through ``with``: reading it does not close it (an upload
    is read twice: checked, then parsed)."""

    def __init__(self, file: Any) -> None:
        self._file = file

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._file.read(len(buffer))
        if isinstance(data, str):
            data = data.encode("utf-8")
        buffer[: len(data)] = data
        return len(data)


def file_name(file: FileLike) -> str:
    """The name shown in problems: the base name of a path or of an uploaded file's name."""
    if isinstance(file, str | os.PathLike):
        return Path(file).name
    name = getattr(file, "name", None) or "upload"
    return Path(str(name)).name


def read_input(file: FileLike, name: str | None = None) -> InputFile:
    """A path or a binary file object (a Django UploadedFile, an open file, BytesIO) as an
    InputFile; nothing is read yet. An upload Django spooled to disk is read from its
    temporary file."""
    display = name or file_name(file)
    if isinstance(file, str | os.PathLike):
        return InputFile(display, Path(file))
    temporary = getattr(file, "temporary_file_path", None)
    if callable(temporary):
        return InputFile(display, Path(temporary()))
    if isinstance(file, io.TextIOBase):
        # A text-mode file: take it as given (its encoding was the opener's business).
        return InputFile(display, file.read().encode("utf-8"))
    seekable = getattr(file, "seekable", None)
    if not hasattr(file, "seek") or (callable(seekable) and not seekable()):
        # A stream that cannot be read twice (a pipe): read once, kept in memory.
        data = file.read()
        return InputFile(display, data.encode("utf-8") if isinstance(data, str) else data)
    return InputFile(display, file)


NUL_ADVICE = "save it as plain text (UTF-8, no NUL bytes) and import it again"


def nul_problem(line: int) -> str:
    return f"the file contains a NUL byte (0x00) on line {line}; {NUL_ADVICE}"


def _utf16_problem(input_file: InputFile, problems: ProblemList) -> None:
    problems.add(
        input_file.name,
        1,
        None,
        "not UTF-8 text: the file starts with a UTF-16 byte-order mark; save it as UTF-8 "
        "and import it again",
    )


def _bad_byte_problem(
    input_file: InputFile, problems: ProblemList, line: int, raw: bytes, position: int
) -> None:
    bad = raw[position : position + 1].hex().upper()
    problems.add(
        input_file.name,
        line,
        None,
        f"not UTF-8 text: byte 0x{bad} at byte {position + 1} of the line cannot be decoded; "
        "save the file as UTF-8 and import it again",
    )


def _raw_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The file's physical lines, each with its b"\\n" (split on b"\\n" only)."""
    yield from iter(lambda: stream.readline(READ_LINE_LIMIT), b"")


# A line longer than this is read in pieces; the pieces are joined again (a line is never
# cut), the limit only keeps readline() from asking for the whole file at once.
READ_LINE_LIMIT = 1 << 20


def _whole_lines(stream: IO[bytes]) -> Iterator[bytes]:
    pending = b""
    for piece in _raw_lines(stream):
        if not piece.endswith(b"\n"):
            pending += piece
            continue
        yield pending + piece if pending else piece
        pending = b""
    if pending:
        yield pending


def scan_text(
    input_file: InputFile,
    problems: ProblemList,
    *,
    header_split: Callable[[str], list[str]] | None = None,
    delimiter: str | None = None,
) -> int | None:
    """Check that the file is UTF-8 text without NUL bytes, reading it line by line; the
    number of lines, or None after reporting what is wrong.

    The first byte that is not UTF-8 is reported (with its line and its byte in the line,
    the line a text editor shows) and stops the scan. Every line with a NUL byte is reported,
    naming the column it is in when ``header_split`` (how the first line is split into column
    names, and so a line into fields) is given; ``delimiter`` separates a line's fields (by
    default a tab if the line has one, else a comma).
    """
    ok = True
    count = 0
    header: list[str] | None = None
    with input_file.open() as stream:
        for count, raw in enumerate(_whole_lines(stream), 1):
            offset = 0
            if count == 1:
                if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    _utf16_problem(input_file, problems)
                    return None
                if raw.startswith(UTF8_BOM):
                    offset = len(UTF8_BOM)
            try:
                text = raw[offset:].decode("utf-8")
            except UnicodeDecodeError as error:
                _bad_byte_problem(input_file, problems, count, raw, error.start + offset)
                return None
            text = _strip_break(text)
            if count == 1 and header_split is not None:
                header = [name.strip() for name in header_split(text)]
            if "\x00" in text:
                problems.add(
                    input_file.name, count, _nul_field(text, header, delimiter), nul_problem(count)
                )
                ok = False
    return count if ok else None


def _nul_field(text: str, header: list[str] | None, delimiter: str | None = None) -> str | None:
    if not header:
        return None
    separator = delimiter or ("\t" if len(header) < 2 or "\t" in text else ",")
    for position, value in enumerate(text.split(separator)):
        if "\x00" in value:
            return header[position] if position < len(header) else None
    return None


def iter_lines(input_file: InputFile) -> Iterator[str]:
    """The file's lines as text, one at a time (see split_lines() for what a line is). Call
    scan_text() first: this assumes UTF-8."""
    with input_file.open() as stream:
        for number, raw in enumerate(_whole_lines(stream), 1):
            if number == 1 and raw.startswith(UTF8_BOM):
                raw = raw[len(UTF8_BOM) :]
            yield _strip_break(raw.decode("utf-8"))


def _strip_break(text: str) -> str:
    if text.endswith("\n"):
        text = text[:-1]
    return text[:-1] if text.endswith("\r") else text


def decode(input_file: InputFile, problems: ProblemList) -> str | None:
    """The file's text, or None after reporting the first byte that is not UTF-8 (or the
    lines with a NUL byte).

    A UTF-8 byte-order mark at the start is dropped. The line of a bad byte is counted in the
    raw bytes, so it is the line a text editor shows.
    """
    raw = input_file.data
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        _utf16_problem(input_file, problems)
        return None
    offset = len(UTF8_BOM) if raw.startswith(UTF8_BOM) else 0
    try:
        text = raw[offset:].decode("utf-8")
    except UnicodeDecodeError as error:
        position = error.start + offset
        line = raw.count(b"\n", 0, position) + 1
        line_start = raw.rfind(b"\n", 0, position) + 1
        _bad_byte_problem(input_file, problems, line, raw[line_start:], position - line_start)
        return None
    if "\x00" in text:
        position = text.find("\x00")
        while position != -1:
            line = text.count("\n", 0, position) + 1
            problems.add(input_file.name, line, None, nul_problem(line))
            next_line = text.find("\n", position)
            position = -1 if next_line == -1 else text.find("\x00", next_line)
        return None
    return text


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
