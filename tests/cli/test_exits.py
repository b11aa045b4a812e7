"""How a command ends: each ending's exit status and lines, and stop signals raised as `Interrupted`."""

import signal

import pytest

from toolsurface.cli._exits import DEBUG, Interrupted, ending, interrupting
from toolsurface.common._errors import UsageError
from toolsurface.scenarios import ScenarioError


def flag(option):
    return f"--{option}"


@pytest.mark.parametrize(
    ("error", "status", "lines"),
    [
        (ScenarioError(["a.json:$: one", "b.json:$: two"]), 2, ["error: a.json:$: one", "error: b.json:$: two"]),
        (UsageError("-1 is wrong", option="seed"), 2, ["error: --seed -1 is wrong"]),
        (
            Interrupted(signal.SIGTERM),
            143,
            ["interrupted by SIGTERM: stopped before finishing; no partial file is left"],
        ),
        (Interrupted(signal.SIGHUP), 129, ["interrupted by SIGHUP: stopped before finishing; no partial file is left"]),
        (KeyboardInterrupt(), 130, ["interrupted by SIGINT: stopped before finishing; no partial file is left"]),
    ],
)
def test_each_ending_has_its_status_and_lines(error, status, lines):
    assert ending(error, flag) == (status, lines)


def test_an_internal_error_is_one_line_unless_debugging(monkeypatch):
    try:
        raise ValueError("two\nlines")
    except ValueError as error:
        raised = error
    monkeypatch.delenv(DEBUG, raising=False)
    status, lines = ending(raised, flag)
    assert status == 3 and len(lines) == 1
    assert lines[0].startswith("internal error: ValueError: two lines (a bug in toolsurface ")
    monkeypatch.setenv(DEBUG, "1")
    status, lines = ending(raised, flag)
    assert status == 3 and lines[0] == "Traceback (most recent call last):" and lines[-1].startswith("internal error: ")


def test_a_stop_signal_raises_interrupted_in_the_block_only():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as stopped, interrupting():
        signal.raise_signal(signal.SIGTERM)  # runs the handler before it returns
    assert stopped.value.signal is signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_signal_ignored_by_whoever_started_the_command_stays_ignored():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with interrupting():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
