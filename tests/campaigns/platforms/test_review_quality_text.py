"""The review list's reliability wording: a p-value too small for three decimals is said as
"p < 0.001", never "p = 0.000"."""

import pytest

from campaigns.platforms.review.quality import reliability_text


@pytest.mark.parametrize(
    ("reliable", "p_value", "text"),
    [
        (True, 0.0001, "reliable (p < 0.001)"),
        (True, 0.0, "reliable (p < 0.001)"),
        (True, 0.001, "reliable (p = 0.001)"),
        (False, 0.62, "not reliable (p = 0.620)"),
        (False, None, "not reliable (not tested yet)"),
    ],
)
def test_reliability_text(reliable, p_value, text):
    assert reliability_text(reliable, p_value) == text
