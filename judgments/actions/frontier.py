"""Where a campaign's hand-out starts looking for a HIT with room (issue 16).

HITs fill in number order, so a campaign under way is a run of full HITs followed by HITs with
room. Counting the live assignments of every HIT on every visit of a worker's link made the
hand-out grow with the campaign (at 16,667 HITs: 21 ms to pick, 83 ms when no HIT had room),
and it runs under the campaign's lock, so every other hand-out of the campaign waited for it.

The campaign's :class:`~judgments.models.HandOutFrontier` is a HIT number below which every
regular HIT (not a qualification HIT, not published on MTurk) is full. A place frees up below
it only through a database write that the triggers of migration judgments 0008 see (a live
assignment expired, returned, rejected or deleted; a HIT added or its places, number or
qualification flag changed; a HIT taken off MTurk; the campaign's redundancy raised): each
writes a :class:`~judgments.models.HitReopened` row with the HIT's number. The hand-out, under
the campaign's lock:

1. takes the frontier lowered to every number reopened since (:func:`hand_out_start`, which
   deletes the rows it read: one ``DELETE ... RETURNING``, so a row written meanwhile stays for
   the next hand-out);
2. looks for a HIT from there on (:func:`judgments.actions.hot_sql.pick_regular_hit`);
3. moves the frontier to the first HIT with room for anyone from there on
   (:func:`advance`), after its own assignment is written.

Why this cannot skip a HIT with room: a hand-out holds the campaign's lock from its start, so
hand-outs do not interleave; a place freed by a transaction that commits before the hand-out's
statements read is seen by them, and one freed later leaves a row the next hand-out reads.
Lowering costs at most a walk over some full HITs; nothing is lost if the frontier is too low.
"""

from __future__ import annotations

from django.db import connections, router

from judgments.actions.hot_sql import store_frontier
from judgments.models import HandOutFrontier, HitReopened


def hand_out_start(campaign_id: int) -> int:
    """The number from which HITs the worker never held are looked for: the campaign's
    frontier, lowered to every HIT reopened since the last hand-out (those rows are deleted).
    Called under the campaign's lock."""
    connection = connections[router.db_for_write(HitReopened)]
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            # Identifiers from the models' metadata only; the value is a parameter.
            f"DELETE FROM {quote(HitReopened._meta.db_table)} "  # noqa: S608
            f"WHERE {quote('campaign_id')} = %s RETURNING {quote('number')}",
            [campaign_id],
        )
        reopened = [number for (number,) in cursor.fetchall()]
    stored = (
        HandOutFrontier.objects.filter(campaign_id=campaign_id)
        .values_list("number", flat=True)
        .first()
    )
    return _lowered(stored, min(reopened, default=None))


def advance(campaign_id: int, redundancy: int, start: int) -> None:
    """Store the campaign's frontier: the first HIT from ``start`` on with room for anyone
    (:func:`judgments.actions.hot_sql.store_frontier`, one statement). Called under the
    campaign's lock, after the hand-out's own assignment is written."""
    store_frontier(campaign_id, redundancy, start)


def lowest_with_room(campaign_id: int) -> int:
    """Read-only: a number below which every regular HIT of the campaign not on MTurk has all
    its places held by live assignments (the frontier, lowered to every HIT reopened since the
    last hand-out, whose rows are left as they are). One query; 0 before the first hand-out.
    For pages that only look (judgments.entry.availability)."""
    connection = connections[router.db_for_read(HitReopened)]
    quote = connection.ops.quote_name
    campaign, number = quote("campaign_id"), quote("number")
    with connection.cursor() as cursor:
        cursor.execute(
            # Identifiers from the models' metadata only; the values are parameters.
            f"SELECT (SELECT {number} FROM {quote(HandOutFrontier._meta.db_table)} "  # noqa: S608
            f"WHERE {campaign} = %s), (SELECT MIN({number}) FROM "
            f"{quote(HitReopened._meta.db_table)} WHERE {campaign} = %s)",
            [campaign_id, campaign_id],
        )
        stored, lowest_reopened = cursor.fetchone()
    return _lowered(stored, lowest_reopened)


def _lowered(stored: int | None, lowest_reopened: int | None) -> int:
    """The stored frontier (0 when none is stored yet) lowered to the lowest HIT number
    reopened since, if any."""
    start = stored or 0
    if lowest_reopened is not None:
        start = min(start, max(lowest_reopened, 0))
    return start
