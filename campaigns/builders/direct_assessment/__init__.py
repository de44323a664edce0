"""HIT assembly for direct assessment (slider) campaigns: pure, seedable, no Django.

Source: Graham, Baldwin, Moffat and Zobel, "Is Machine Translation Getting Better over Time?"
(EACL 2014, section 3 and Table 2, ``papers/001``), whose HIT design comes from Graham et al.
(LAW 2013, section 4, same file). ``METHODS.md`` section 2 summarises it.

A HIT is 100 items in 10 sets of 10 (2014 section 3, "HIT structure"): 70 distinct system
outputs "made up of roughly equal proportions of translations for each evaluated system",
10 bad references "each based on one of the 70 system outputs", 10 exact repeats and 10
reference translations. Table 2 says what each set holds; sets ``S_t`` and ``S_t+5``
(``t = 0..4`` here, 0-based) are paired::

    S_t                                   S_t+5
    bad reference of output a             output a
    output b                              repeat of b
    reference of output c's segment       output c
    output d                              bad reference of output d     } "above in
    output e                              repeat of e                   }  reverse"
    output f                              reference of output f's seg.  }
    4 other outputs                       4 other outputs

Items are shuffled within each set and the sets keep their order, so the two members of every
pair lie in sets five apart: their positions differ by at least 41 (40 items in between, the
paper's "minimum of 40 intervening assessments") and at most 59 (tested, both bounds reached).

On the repeat row read "in reverse": a repeat is an exact copy, so which of its two showings
carries the ``repeat`` label is bookkeeping only. We label the *later* showing, so a repeat
always follows the output it repeats (``controls_position < position``), as the 2013 paper's
"ask again" and ``HitSlot.controls`` ("a repeat to the first showing") mean, and as the
"initial vs repeat" comparison of Assumption A needs. The content of each set is exactly
Table 2's; only the label moves, so ``S_t`` holds 8 ``system`` slots, a bad reference and a
reference, and ``S_t+5`` 6 ``system`` slots, a bad reference, a reference and 2 repeats.

Choices this package makes, and why (all tested in
``tests/campaigns/test_direct_assessment_layout.py``):

* **Equal shares per system.** Each HIT gives every system ``70 // m`` or ``70 // m + 1``
  system slots (``m`` systems; the extra slots rotate over the systems, larger systems first).
  A system needs at least as many outputs as its share, otherwise a HIT could not hold 70
  *distinct* outputs: ``ValueError``.
* **Coverage in the fewest HITs, re-use spread evenly.** The number of HITs is the smallest
  for which every system's slots over all HITs are at least its number of outputs
  (:func:`hit_count`). A system's share of a HIT always comes from its least-shown outputs,
  those not shown yet first, so every output is shown before any is re-used, and each
  system's outputs end up shown ``n`` or ``n + 1`` times (by induction: at the start of a HIT
  they are at two adjacent levels, and taking distinct outputs from the lower level first
  keeps them so). That is how the last HIT is completed when counts do not divide evenly
  (with re-used outputs, drawn in equal shares from every system and evenly within each),
  and how a system with fewer outputs than the others keeps its share in every HIT. Only the
  bad-reference rule below may break this evenness, in campaigns with very many one-word
  outputs.
* **One output per segment in a HIT when possible.** The paper rates each translation "in
  isolation from other translations"; showing a worker several systems' translations of the
  same sentence (and, in adequacy, the same gray reference again) invites comparison and lets
  them recognise it, so WMT avoids a source twice in one HIT. We place outputs along one
  shuffled segment order, each system starting at a different offset (so that the systems
  walk through different segments at the same time), take among equally used outputs those
  on segments the HIT does not show yet (then the least-shown segments), and afterwards swap
  outputs of the same system between HITs to undo what remains.
  Guarantee: when every system has an output for each of ``L`` segments and
  ``L >= m * (70 // m + 2)``, no HIT shows a segment twice. (Neighbouring walkers start at
  least ``floor(L / m)`` segments apart. After ``h`` HITs a system has taken
  ``S(h) = h * (70 // m) + floor or ceil of h * (70 % m) / m`` slots, so for any two systems
  ``S_i(h + 1) - S_j(h) <= 70 // m + 2 <= floor(L / m)``: in HIT ``h`` a walker's chunk ends
  before the next walker's chunk starts. And with ``L - 70 >= 2m`` free segments a system
  that re-uses its outputs always finds one on a free segment.) Below that bound it is a
  preference that the swaps usually but not always meet (e.g. exactly 70 segments, where
  every HIT needs all of them); a campaign with fewer than 70 segments must show segments
  more than once in a HIT, and the swaps spread those repeats out. It is never a reason to
  leave an output out or to add a HIT.
* **Bad references only from outputs that can be degraded** (:func:`can_degrade`: two words at
  least), so every HIT needs 10 such outputs among its 70. A HIT short of them gets them, in
  this order, by swapping outputs of the same system with a HIT that has more than 10; by
  showing a degradable output instead of a re-used non-degradable one (most-shown out,
  least-shown in); by moving a non-degradable output into another HIT in place of a re-used
  output there; or by first raising another HIT above 10 so that one of those works. All keep
  coverage and shares. When nothing works (the campaign has too few outputs of two words or
  more for its HITs): ``ValueError``.
* **Repeats balance what is scored.** Repeats count as outputs for system scores (METHODS.md),
  so the 10 repeats go to the systems with the fewest outputs in the HIT first.
* **References are paired with outputs that differ from them** where possible, so that a
  reference item is not merely a repeat (the reference evaluated as a pseudo-system).

Randomness comes from ``random.Random(seed)`` only: the same input and seed give the same
HITs whatever the order of the input list; another seed gives other HITs.

The package, by responsibility: ``constants`` (the numbers of the 2014 design and the slot
roles), ``plans`` (the builder's input and output records), ``shares`` (equal shares and the
number of HITs), ``validation`` (what the builder refuses, and why), ``selection`` (which 70
outputs each HIT shows), ``layout`` (their roles and sets as in Table 2) and ``build`` (the
entry point, which gives the HITs their positions and control texts).
"""

from __future__ import annotations

from campaigns.builders.direct_assessment.build import build_direct_assessment_hits
from campaigns.builders.direct_assessment.constants import (
    BAD_REFERENCES_PER_HIT,
    HIT_SIZE,
    PAIR_DISTANCE_MAX,
    PAIR_DISTANCE_MIN,
    REFERENCES_PER_HIT,
    REPEATS_PER_HIT,
    ROLE_BAD_REFERENCE,
    ROLE_REFERENCE,
    ROLE_REPEAT,
    ROLE_SYSTEM,
    SET_COUNT,
    SET_SIZE,
    SYSTEM_OUTPUTS_PER_HIT,
)
from campaigns.builders.direct_assessment.plans import DAOutput, SlotPlan
from campaigns.builders.direct_assessment.shares import hit_count, minimum_outputs_per_system
from campaigns.builders.direct_assessment.validation import hit_size_problem, short_systems_problem

__all__ = [
    "BAD_REFERENCES_PER_HIT",
    "HIT_SIZE",
    "PAIR_DISTANCE_MAX",
    "PAIR_DISTANCE_MIN",
    "REFERENCES_PER_HIT",
    "REPEATS_PER_HIT",
    "ROLE_BAD_REFERENCE",
    "ROLE_REFERENCE",
    "ROLE_REPEAT",
    "ROLE_SYSTEM",
    "SET_COUNT",
    "SET_SIZE",
    "SYSTEM_OUTPUTS_PER_HIT",
    "DAOutput",
    "SlotPlan",
    "build_direct_assessment_hits",
    "hit_count",
    "hit_size_problem",
    "minimum_outputs_per_system",
    "short_systems_problem",
]
