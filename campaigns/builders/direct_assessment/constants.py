"""The numbers of the 2014 HIT design (section 3 and Table 2), the limits derived from them,
and the slot roles."""

from __future__ import annotations

# 2014 section 3: a HIT of 100 in 10 sets of 10, 70 outputs + 10 + 10 + 10 controls.
HIT_SIZE = 100
SET_SIZE = 10
SET_COUNT = 10
SYSTEM_OUTPUTS_PER_HIT = 70
BAD_REFERENCES_PER_HIT = 10
REPEATS_PER_HIT = 10
REFERENCES_PER_HIT = 10
PAIRED_SET_OFFSET = 5  # Table 2 pairs S_t with S_t+5
# Members of a pair are in sets five apart: last of S_t to first of S_t+5 is 41 positions,
# first of S_t to last of S_t+5 is 59.
PAIR_DISTANCE_MIN = PAIRED_SET_OFFSET * SET_SIZE - SET_SIZE + 1
PAIR_DISTANCE_MAX = PAIRED_SET_OFFSET * SET_SIZE + SET_SIZE - 1

# Slot roles, spelled as campaigns.models.SlotRole (this module may not import Django).
ROLE_SYSTEM = "system"
ROLE_BAD_REFERENCE = "bad_reference"
ROLE_REPEAT = "repeat"
ROLE_REFERENCE = "reference"
