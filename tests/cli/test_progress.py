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
        progress.advance()
    assert "running 10 cases" in screen.getvalue() and "left" in screen.getvalue()


def test_durations_read_at_a_glance():
    assert [duration(s) for s in (4.6, 65, 3725)] == ["5 s", "1 min 05 s", "1 h 02 min"]
