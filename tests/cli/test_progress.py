"""How a run shows its progress: lines with an estimate in a log, a bar on a terminal."""

import io

from rich.console import Console

from toolsurface.cli._progress import CaseProgress, duration


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_log_gets_a_line_every_interval_with_the_time_left():
    clock, log = Clock(), io.StringIO()
    with CaseProgress(Console(file=log, width=200), 400, every=10.0, clock=clock) as progress:
        for _ in range(400):
            clock.now += 0.125  # 50 s in all: a line at 10, 20, 30, 40 and 50 s
            progress.advance()
    lines = log.getvalue().splitlines()
    assert lines[0] == "running: 80 of 400 cases (20%) in 10 s, about 40 s left"
    assert lines[1] == "running: 160 of 400 cases (40%) in 20 s, about 30 s left"
    assert len(lines) == 5


def test_the_first_estimate_leaves_out_the_slow_start():
    # The first case ends at 30 s (workers start, first imports), the others 0.125 s apart: at 45 s, 121
    # of 1,000 are done and 879 × 0.125 s are left. The rate since the start would say 5 min 27 s.
    clock, log = Clock(), io.StringIO()
    with CaseProgress(Console(file=log, width=200), 1000, every=15.0, clock=clock) as progress:
        for done in range(1000):
            clock.now += 0.125 if done else 30
            progress.advance()
    lines = log.getvalue().splitlines()
    assert lines[0] == "running: 1 of 1,000 cases (0%) in 30 s"  # no rate to go by yet
    assert lines[1] == "running: 121 of 1,000 cases (12%) in 45 s, about 1 min 50 s left"


def test_no_estimate_until_cases_after_the_warm_up_have_finished():
    clock = Clock()
    progress = CaseProgress(Console(file=io.StringIO()), 200, clock=clock)
    for done in range(1, 21):
        clock.now += 1
        progress.advance()
        assert ("about" in progress.line(clock.now)) == (done >= 20), done  # the warm-up is the first 10


def test_a_run_shorter_than_the_interval_prints_nothing_to_a_log():
    clock, log = Clock(), io.StringIO()
    with CaseProgress(Console(file=log), 5, clock=clock) as progress:
        for _ in range(5):
            clock.now += 1
            progress.advance()
    assert log.getvalue() == ""


def test_a_terminal_gets_a_bar_with_the_time_left():
    clock, screen = Clock(), io.StringIO()
    with CaseProgress(
        Console(file=screen, force_terminal=True, width=120, color_system=None), 10, clock=clock
    ) as progress:
        for _ in range(4):
            clock.now += 1
            progress.advance()
    assert "running 10 cases" in screen.getvalue() and "about 6 s left" in screen.getvalue()


def test_durations_read_at_a_glance():
    assert [duration(s) for s in (4.6, 65, 3725)] == ["5 s", "1 min 05 s", "1 h 02 min"]
