"""Small judgment files in the published layouts, shared by the judgment-import tests (data
only: no test here).

The direct-assessment pair (two workers, two systems, five segments) is built so that every
figure can be worked by hand; the derivations are in the tests that use them.
"""

from __future__ import annotations

WMT_DA_HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"


def _da_rows(hit: str, worker: str, time: str, items: list[tuple[str, str, str, float]]) -> list:
    return [
        "\t".join(
            [hit, worker, "cs", "en", "ad", "1", system, "100", kind, sid, f"{score:g}", time]
        )
        for system, kind, sid, score in items
    ]


def worker_items(a: float, b: float, bad: list[float], ref: list[float]) -> list:
    """A HIT of 22 items: system A and system B on segments 1-5, a bad reference of each of
    A's outputs, the reference in place of each of B's outputs, and a repeat of A's and B's
    output on segment 1."""
    items = [("A", "SYSTEM", str(s), a) for s in range(1, 6)]
    items += [("B", "SYSTEM", str(s), b) for s in range(1, 6)]
    items += [("A", "BAD_REF", str(s), bad[s - 1]) for s in range(1, 6)]
    items += [("B", "REF", str(s), ref[s - 1]) for s in range(1, 6)]
    items += [("A", "REPEAT", "1", a), ("B", "REPEAT", "1", b)]
    return items


# W1: 75 for A, 25 for B; bad references 25 (50 below their outputs: reliable); references 75.
# W2: 90 for A, 60 for B; bad references 60, 60, 90, 90, 90 (only two below: unreliable).
W1_ITEMS = worker_items(75, 25, [25] * 5, [75] * 5)
W2_ITEMS = worker_items(90, 60, [60, 60, 90, 90, 90], [90, 90, 60, 60, 60])
WMT_DA_RAW = (
    "\n".join(
        [
            WMT_DA_HEADER,
            *_da_rows("H1", "W1", "220.0", W1_ITEMS),
            *_da_rows("H2", "W2", "110.0", W2_ITEMS),
        ]
    )
    + "\n"
)

# The same HITs as published z-scores: W1 gives +1 / -1, W2 +0.5 / -0.5.
W1_Z = worker_items(1.0, -1.0, [-1.0] * 5, [0.5] * 5)
W2_Z = worker_items(0.5, -0.5, [-0.5, -0.5, 0.5, 0.5, 0.5], [0.5, 0.5, -0.5, -0.5, -0.5])
WMT_DA_STANDARDISED = (
    "\n".join(
        [WMT_DA_HEADER, *_da_rows("H1", "W1", "220.0", W1_Z), *_da_rows("H2", "W2", "110.0", W2_Z)]
    )
    + "\n"
)


def da_row(hit, worker, system, kind, sid, score, time="10.0", src="cs", trg="en", item="ad"):
    return "\t".join([hit, worker, src, trg, item, "1", system, "100", kind, sid, score, time])


def da_file(*rows: str, header: str = WMT_DA_HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


# Four ranking sets of systems X, Y and Z on two segments, by judges J1 and J2:
#   J1, segment 1: X 1, Y 2, Z 3      J1, segment 2: X 1, Y 1, Z 2 (a tie)
#   J2, segment 1: Y 1, X 2, Z 3      J2, segment 2: Y 1, Z 2, X unranked (-1)
WMT10_HEADER = (
    "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,"
    "system2Number,system2Id,system3Number,system3Id,system1rank,system2rank,system3rank"
)
WMT10_RR = (
    "\n".join(
        [
            WMT10_HEADER,
            "Czech,English,1,doc1,1,J1,1,X,2,Y,3,Z,1,2,3",
            "Czech,English,2,doc1,2,J1,1,X,2,Y,3,Z,1,1,2",
            "Czech,English,1,doc1,1,J2,2,Y,1,X,3,Z,1,2,3",
            "Czech,English,2,doc1,2,J2,3,Z,2,Y,1,X,2,1,-1",
        ]
    )
    + "\n"
)
WMT08_HEADER = (
    "TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_0,SCORE_0_A,SCORE_0_B,"
    "SYSTEM_1,SCORE_1_A,SCORE_1_B,SYSTEM_2,SCORE_2_A,SCORE_2_B"
)
WMT08_TASK = "WMT08 Czech-English News Commentary"
WMT08_RR = (
    "\n".join(
        [
            WMT08_HEADER,
            f"{WMT08_TASK},RANK,0,1,30,X,1,,Y,2,,Z,3,",
            f"{WMT08_TASK},RANK,1,1,45,X,1,,Y,1,,Z,2,",
            f"{WMT08_TASK},CONSTITUENT,17,1,12,X,2,,Y,1,,,,",
            f"{WMT08_TASK},RANK,0,2,60,Y,1,,X,2,,Z,3,",
            f"{WMT08_TASK},RANK,1,2,20,Z,2,,Y,1,,X,-1,",
        ]
    )
    + "\n"
)


APPRAISE_TYPES = {"SYSTEM": "TGT", "REPEAT": "CHK", "BAD_REF": "BAD", "REF": "REF"}


def appraise_rows(user: str, batch: str, seconds: int, items: list, start: int) -> list:
    """Appraise's export with --batch-info: 11 fields per judgment (times in Unix seconds)."""
    rows = []
    for n, (system, kind, sid, score) in enumerate(items):
        begin = start + n * seconds
        rows.append(
            f"{user},{system},{sid},{APPRAISE_TYPES[kind]},ces,eng,{score:g},"
            f"{begin},{begin + seconds},{batch},{1000 + n}"
        )
    return rows


# The direct-assessment pair above as an Appraise campaign: u1 in batch 1, 10 s per item;
# u2 in batch 2, 5 s per item.
APPRAISE_SCORES = (
    "\n".join(
        [
            *appraise_rows("u1", "1", 10, W1_ITEMS, 1_700_000_000),
            *appraise_rows("u2", "2", 5, W2_ITEMS, 1_700_100_000),
        ]
    )
    + "\n"
)
