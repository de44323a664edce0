"""Compile the statistics' numba kernels into numba's on-disk cache (``__pycache__`` next to
their modules), so that a worker's first large recompute loads them instead of compiling them:
the ranking bootstrap and TrueSkill loops and the post-editing TER kernel take 10-40 s of CPU to
compile, once per checkout (issue 16). The Docker build runs this; on another deployment run it
once after installing or updating the code, as the user that owns the code:

    python deploy/compile_kernels.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    started = time.perf_counter()
    from analytics.stats.post_editing import ter_kernel
    from analytics.stats.ranking import bootstrap_kernel, trueskill_kernel

    bootstrap_kernel.warm_up()
    trueskill_kernel.warm_up()
    # One pair that needs a shift, so that every compiled function of the TER kernel runs.
    assert ter_kernel.edit_counts([["b", "c", "a", "d"]], [["a", "b", "c", "d"]]) == [(1, 4)]
    print(f"numba kernels compiled and cached in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
