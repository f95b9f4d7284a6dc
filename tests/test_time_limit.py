"""The optimizer's budgets count CPU time: a computation that waits (or that a loaded machine
keeps from the CPU) is not cut short, one that computes past its budget is, inside C code too."""
import time

import islpy as isl
import pytest

from s2s.time_limit import TimeLimitExceeded, run_with_cpu_limit, run_with_time_limit, work_clock


def _spin(seconds: float) -> float:
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds


def test_a_computation_within_its_cpu_budget_returns_its_result():
    assert run_with_cpu_limit(lambda: _spin(0.1), 2.0) == 0.1


def test_a_computation_past_its_cpu_budget_is_stopped():
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded) as caught:
        run_with_cpu_limit(lambda: _spin(30), 0.3)
    assert caught.value.seconds == 0.3 and time.monotonic() - start < 10


def test_waiting_does_not_count_against_a_cpu_budget_but_against_a_time_limit():
    assert run_with_cpu_limit(lambda: (time.sleep(0.6), "done")[1], 0.2) == "done"
    with pytest.raises(TimeLimitExceeded):
        run_with_time_limit(lambda: time.sleep(5), 0.2)


def test_isl_work_past_a_cpu_budget_is_stopped_inside_isl():
    """isl cannot be interrupted from Python: the child's timer ends it where it is."""
    hard = isl.Set("[n] -> { [i, j, k, l] : 0 <= i, j, k, l < n and 3i + 5j - 7k + 11l = 13 }")

    def forever():
        s = hard
        while True:
            s = s.union(s.coalesce().lexmin()).coalesce()
    with pytest.raises(TimeLimitExceeded):
        run_with_cpu_limit(forever, 0.3)


def test_errors_come_back_as_they_were_raised():
    def fails():
        raise ValueError("no schedule")
    with pytest.raises(ValueError, match="no schedule"):
        run_with_cpu_limit(fails, 1.0)


def test_the_work_clock_counts_this_threads_computation_only():
    before = work_clock()
    time.sleep(0.2)
    slept = work_clock() - before
    _spin(0.1)
    assert slept < 0.1 <= work_clock() - before + 0.01
