"""The export writers (analytics.export_formats): judgment rows as CSV and JSON Lines that read
back exactly, and system tables as CSV, WMT-style TSV and LaTeX, checked as exact strings."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest

from analytics.export_formats import (
    INCOMPLETE_MESSAGE,
    DASystemRow,
    ExportStopped,
    RankingSystemRow,
    csv_chunks,
    da_systems_csv,
    da_systems_latex,
    da_systems_tsv,
    jsonl_chunks,
    latex_escape,
    ranking_systems_csv,
    ranking_systems_latex,
    ranking_systems_tsv,
)

COLUMNS = ("id", "text", "score", "yes_no", "at", "details", "missing")
# Everything that breaks a naive writer: the delimiter, quotes, a tab, LF and CRLF line
# breaks, markup, non-ASCII (accents, CJK, emoji, right-to-left), a line separator (U+2028,
# a line break for str.splitlines but not for JSON Lines), a leading "=" and spaces.
NASTY = [
    'He said "no", then left.',
    "tab\there",
    "two\nlines",
    "windows\r\nline",
    "<script>alert('x')</script>",
    "Grüße, 東京 🙂 שלום",
    "line\u2028separator",
    "=SUM(A1:A2)",
    "  padded  ",
    "",
]
AT = datetime(2024, 5, 17, 9, 30, 5, 123456, tzinfo=UTC)


def rows() -> list[tuple]:
    return [
        (
            n,
            text,
            12.5 + n,
            n % 2 == 0,
            AT,
            {"redundant_with": [n, n + 1], "note": text},
            None,
        )
        for n, text in enumerate(NASTY, start=1)
    ]


def test_csv_reads_back_exactly_with_the_csv_module():
    data = b"".join(csv_chunks(COLUMNS, rows())).decode("utf-8")
    parsed = list(csv.reader(io.StringIO(data, newline="")))
    assert parsed[0] == list(COLUMNS)
    assert parsed[1:] == [
        [
            str(n),
            text,
            repr(12.5 + n),
            "true" if n % 2 == 0 else "false",
            "2024-05-17T09:30:05.123456+00:00",
            json.dumps(
                {"redundant_with": [n, n + 1], "note": text},
                ensure_ascii=False,
                separators=(",", ":"),
            ),
            "",
        ]
        for n, text in enumerate(NASTY, start=1)
    ]
    assert [row[1] for row in parsed[1:]] == NASTY


def test_csv_lines_are_rfc_4180():
    data = b"".join(csv_chunks(("a", "b"), [(1, 'x "y"'), (2, "p\nq"), (3, "plain")]))
    assert data == b'a,b\r\n1,"x ""y"""\r\n2,"p\nq"\r\n3,plain\r\n'


def test_csv_cells_none_empty_booleans_lowercase_json_for_dicts_and_lists():
    data = b"".join(csv_chunks(("a",) * 6, [(None, True, False, {"k": "ü"}, [1, 2], 0.1)]))
    assert data.decode().splitlines()[1] == ',true,false,"{""k"":""ü""}","[1,2]",0.1'


def test_jsonl_reads_back_exactly_one_object_per_line():
    data = b"".join(jsonl_chunks(COLUMNS, rows())).decode("utf-8")
    assert data.endswith("\n")
    lines = data.split("\n")[:-1]
    assert len(lines) == len(NASTY)  # newlines inside texts are escaped; U+2028 is not a break
    assert [json.loads(line) for line in lines] == [
        {
            "id": n,
            "text": text,
            "score": 12.5 + n,
            "yes_no": n % 2 == 0,
            "at": "2024-05-17T09:30:05.123456+00:00",
            "details": {"redundant_with": [n, n + 1], "note": text},
            "missing": None,
        }
        for n, text in enumerate(NASTY, start=1)
    ]
    # UTF-8 text, not \u escapes; keys in column order; no spaces after separators.
    assert "Grüße, 東京 🙂 שלום" in data
    assert lines[0].startswith('{"id":1,"text":"He said \\"no\\", then left.","score":13.5,')


def test_chunks_hold_whole_lines_and_concatenate_to_the_same_file():
    many = rows() * 50
    whole = b"".join(csv_chunks(COLUMNS, many, chunk_size=10**9))
    chunks = list(csv_chunks(COLUMNS, many, chunk_size=1000))
    assert b"".join(chunks) == whole
    for chunk in chunks:
        assert chunk.endswith(b"\r\n")
        # Each chunk parses on its own: no row is split between two chunks.
        list(csv.reader(io.StringIO(chunk.decode(), newline="")))
    assert all(len(chunk) >= 1000 for chunk in chunks[:-1])
    jsonl = list(jsonl_chunks(COLUMNS, many, chunk_size=1000))
    assert all(chunk.endswith(b"\n") for chunk in jsonl)
    assert sum(chunk.count(b"\n") for chunk in jsonl) == len(many)


def test_an_empty_export_is_the_header_alone():
    assert b"".join(csv_chunks(("a", "b"), [])) == b"a,b\r\n"
    assert b"".join(jsonl_chunks(("a", "b"), [])) == b""


def test_rows_are_read_lazily():
    consumed = []

    def source():
        for n in range(5000):
            consumed.append(n)
            yield (n, "x" * 100)

    chunks = csv_chunks(("n", "text"), source(), chunk_size=10_000)
    first = next(chunks)
    assert 90 <= len(consumed) < 200  # about one chunk's worth, not the 5,000 rows
    assert first.startswith(b"n,text\r\n0,")


# --- System tables ---------------------------------------------------------------------------

DA_ROWS = [
    DASystemRow(1, 1, "Online-A", 0.1237, 73.52, 1000, 1, 500),
    DASystemRow(2, 3, "UEdin_NMT & co", 0.0004, 71.26, 980, 2, 490),
    DASystemRow(2, 3, "sys#3 {50%} ~x^y\\z $", -0.0004, 70.04, 990, 2, 495),
    DASystemRow(4, 4, "HUMAN", -0.081, 66.8, 976, 3, 488),
]


def test_da_csv_keeps_full_precision():
    assert da_systems_csv(DA_ROWS) == (
        "rank_best,rank_worst,system,mean_z,mean_raw,n,cluster,n_segments\r\n"
        "1,1,Online-A,0.1237,73.52,1000,1,500\r\n"
        "2,3,UEdin_NMT & co,0.0004,71.26,980,2,490\r\n"
        "2,3,sys#3 {50%} ~x^y\\z $,-0.0004,70.04,990,2,495\r\n"
        "4,4,HUMAN,-0.081,66.8,976,3,488\r\n"
    )


def test_da_tsv_is_wmts_newstest_table_rounded_as_printed():
    assert da_systems_tsv(DA_ROWS) == (
        "#\tAve %\tAve z\tSystem\tn\tCluster\tSegments\n"
        "1\t73.5\t0.124\tOnline-A\t1000\t1\t500\n"
        "2-3\t71.3\t0.000\tUEdin_NMT & co\t980\t2\t490\n"
        "2-3\t70.0\t0.000\tsys#3 {50%} ~x^y\\z $\t990\t2\t495\n"  # -0.0004: no "-0.000"
        "4\t66.8\t-0.081\tHUMAN\t976\t3\t488\n"
    )


def test_tsv_cells_never_carry_a_tab_or_line_break():
    table = da_systems_tsv([DASystemRow(1, 1, "a\tb\nc\r\nd", 0.5, 50.0, 3, 1, 2)])
    assert table.splitlines()[1].split("\t") == ["1", "50.0", "0.500", "a b c  d", "3", "1", "2"]


def test_da_latex_is_booktabs_with_rules_between_clusters_and_escaped_names():
    assert da_systems_latex(DA_ROWS, "newstest2024 de-en: 50% & more") == (
        "% Needs \\usepackage{booktabs} in the preamble.\n"
        "\\begin{table}\n"
        "\\centering\n"
        "\\begin{tabular}{rrrl}\n"
        "\\toprule\n"
        "\\# & Ave \\% & Ave $z$ & System \\\\\n"
        "\\midrule\n"
        "1 & 73.5 & 0.124 & Online-A \\\\\n"
        "\\midrule\n"
        "2--3 & 71.3 & 0.000 & UEdin\\_NMT \\& co \\\\\n"
        "2--3 & 70.0 & 0.000 & sys\\#3 \\{50\\%\\} \\textasciitilde{}x\\textasciicircum{}y"
        "\\textbackslash{}z \\$ \\\\\n"
        "\\midrule\n"
        "4 & 66.8 & $-$0.081 & HUMAN \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\caption{newstest2024 de-en: 50\\% \\& more}\n"
        "\\end{table}\n"
    )


def test_latex_escape_handles_every_special_character_once():
    assert latex_escape("& % $ # _ { } ~ ^ \\") == (
        r"\& \% \$ \# \_ \{ \} \textasciitilde{} \textasciicircum{} \textbackslash{}"
    )
    # The backslash of an escape is not escaped again, whatever the order of the characters.
    assert latex_escape("\\&") == r"\textbackslash{}\&"
    assert latex_escape("a\nb\t\tc") == "a b c"
    assert latex_escape("Grüße <b>") == "Grüße <b>"


RANKING_ROWS = [
    RankingSystemRow("expected_wins", 1, 1, "A", 0.6123, 0.58, 0.64, None, 120, 70, 10, 40, 1),
    RankingSystemRow("expected_wins", 2, 3, "B_2", 0.5, 0.47, 0.531, None, 120, 55, 10, 55, 2),
    RankingSystemRow("expected_wins", 2, 3, "C", 0.4877, 0.45, 0.52, None, 120, 50, 12, 58, 2),
    RankingSystemRow("expected_wins", 4, 4, "D", None, None, None, None, 0, 0, 0, 0, 3),
    RankingSystemRow("trueskill", 1, 1, "A", 1.234, None, None, 0.8, 120, 70, 10, 40, None),
    RankingSystemRow("trueskill", 2, 2, "C", -0.5, None, None, 0.9, 120, 50, 12, 58, None),
    RankingSystemRow("trueskill", 3, 3, "B_2", -0.734, None, None, 0.85, 120, 55, 10, 55, None),
]


def test_ranking_csv_has_one_line_per_method_and_system():
    assert ranking_systems_csv(RANKING_ROWS) == (
        "method,rank_best,rank_worst,system,score,ci_low,ci_high,sigma,n,wins,ties,losses,"
        "cluster\r\n"
        "expected_wins,1,1,A,0.6123,0.58,0.64,,120,70,10,40,1\r\n"
        "expected_wins,2,3,B_2,0.5,0.47,0.531,,120,55,10,55,2\r\n"
        "expected_wins,2,3,C,0.4877,0.45,0.52,,120,50,12,58,2\r\n"
        "expected_wins,4,4,D,,,,,0,0,0,0,3\r\n"
        "trueskill,1,1,A,1.234,,,0.8,120,70,10,40,\r\n"
        "trueskill,2,2,C,-0.5,,,0.9,120,50,12,58,\r\n"
        "trueskill,3,3,B_2,-0.734,,,0.85,120,55,10,55,\r\n"
    )


def test_ranking_tsv_rounds_scores_to_three_decimals():
    assert ranking_systems_tsv(RANKING_ROWS) == (
        # Issue 12: the counts each score is made of (wins, ties, losses) follow n.
        "Method\t#\tScore\tCI low\tCI high\tSigma\tSystem\tn\tWins\tTies\tLosses\tCluster\n"
        "expected_wins\t1\t0.612\t0.580\t0.640\t\tA\t120\t70\t10\t40\t1\n"
        "expected_wins\t2-3\t0.500\t0.470\t0.531\t\tB_2\t120\t55\t10\t55\t2\n"
        "expected_wins\t2-3\t0.488\t0.450\t0.520\t\tC\t120\t50\t12\t58\t2\n"
        "expected_wins\t4\t\t\t\t\tD\t0\t0\t0\t0\t3\n"
        "trueskill\t1\t1.234\t\t\t0.800\tA\t120\t70\t10\t40\t\n"
        "trueskill\t2\t-0.500\t\t\t0.900\tC\t120\t50\t12\t58\t\n"
        "trueskill\t3\t-0.734\t\t\t0.850\tB_2\t120\t55\t10\t55\t\n"
    )


def test_ranking_latex_is_one_table_per_method_in_the_given_order():
    order = ["win_ratio_geq", "expected_wins", "bradley_terry", "trueskill"]
    captions = {"expected_wins": "EW: 95% intervals", "trueskill": "TS_caption"}
    assert ranking_systems_latex(RANKING_ROWS, captions, order) == (
        "% Needs \\usepackage{booktabs} in the preamble.\n"
        "\\begin{table}\n"
        "\\centering\n"
        "\\begin{tabular}{rrcl}\n"
        "\\toprule\n"
        "\\# & Exp.\\ wins & 95\\% interval & System \\\\\n"
        "\\midrule\n"
        "1 & 0.612 & [0.580, 0.640] & A \\\\\n"
        "\\midrule\n"
        "2--3 & 0.500 & [0.470, 0.531] & B\\_2 \\\\\n"
        "2--3 & 0.488 & [0.450, 0.520] & C \\\\\n"
        "\\midrule\n"
        "4 & -- & -- & D \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\caption{EW: 95\\% intervals}\n"
        "\\end{table}\n"
        "\n"
        "\\begin{table}\n"
        "\\centering\n"
        "\\begin{tabular}{rrcl}\n"
        "\\toprule\n"
        "\\# & $\\mu$ & $\\sigma$ & System \\\\\n"
        "\\midrule\n"
        "1 & 1.234 & 0.800 & A \\\\\n"
        "2 & $-$0.500 & 0.900 & C \\\\\n"
        "3 & $-$0.734 & 0.850 & B\\_2 \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\caption{TS\\_caption}\n"
        "\\end{table}\n"
    )


def test_empty_tables_have_their_headers():
    assert da_systems_csv([]) == (
        "rank_best,rank_worst,system,mean_z,mean_raw,n,cluster,n_segments\r\n"
    )
    assert da_systems_tsv([]) == "#\tAve %\tAve z\tSystem\tn\tCluster\tSegments\n"
    assert ranking_systems_latex([], {}, ["trueskill"]) == (
        "% Needs \\usepackage{booktabs} in the preamble.\n"
    )


# --- Spreadsheet-safe cells and streams that fail partway (issue 11) ---------------------------


def test_csv_cells_pass_through_a_cell_function_after_conversion():
    seen = []

    def cell(value):
        seen.append(value)
        return value

    rows = [(1, "=1+1", 2.5, True, datetime(2024, 1, 2, tzinfo=UTC), {"a": 1}, None)]
    assert b"".join(csv_chunks(COLUMNS, rows, cell=cell)) == b"".join(csv_chunks(COLUMNS, rows))
    assert seen == [1, "=1+1", 2.5, "true", "2024-01-02T00:00:00+00:00", '{"a":1}', None]


def test_csv_may_start_with_a_byte_order_mark():
    data = b"".join(csv_chunks(("a",), [("x",)], byte_order_mark=True))
    assert data == b"\xef\xbb\xbfa\r\nx\r\n"


def failing_rows(good: int):
    for n in range(good):
        yield (n, f"row {n}", 1.0, None, None, None, None)
    raise ValueError("year 0 is out of range")


def collect(chunks):
    received = []
    with pytest.raises(ExportStopped) as stopped:
        for chunk in chunks:
            received.append(chunk)
    return stopped.value, b"".join(received).decode()


@pytest.mark.parametrize("chunk_size", [1, 64, 10**9])
def test_a_csv_stream_that_fails_ends_with_an_unterminated_error_line(chunk_size):
    stopped, text = collect(csv_chunks(COLUMNS, failing_rows(2), chunk_size=chunk_size))
    assert stopped.rows == 2 and isinstance(stopped.__cause__, ValueError)
    *rows, error, end = text.split("\r\n")
    assert len(rows) == 3  # the header and both rows: nothing buffered is lost
    assert (error, end) == ('"' + INCOMPLETE_MESSAGE.format(rows=2), "")
    with pytest.raises(csv.Error):
        list(csv.reader(io.StringIO(text, newline=""), strict=True))


@pytest.mark.parametrize("chunk_size", [1, 10**9])
def test_a_jsonl_stream_that_fails_ends_with_a_line_that_is_not_json(chunk_size):
    stopped, text = collect(jsonl_chunks(COLUMNS, failing_rows(1), chunk_size=chunk_size))
    assert stopped.rows == 1
    first, error, end = text.split("\n")
    assert json.loads(first)["text"] == "row 0"
    assert (error, end) == (INCOMPLETE_MESSAGE.format(rows=1), "")
    with pytest.raises(json.JSONDecodeError):
        json.loads(error)


def test_a_row_the_writer_cannot_write_stops_the_stream_too():
    rows = [(1, object(), None, None, None, None, None)]
    stopped, text = collect(jsonl_chunks(COLUMNS, rows))
    assert stopped.rows == 0 and isinstance(stopped.__cause__, TypeError)
    assert text == INCOMPLETE_MESSAGE.format(rows=0) + "\n"
