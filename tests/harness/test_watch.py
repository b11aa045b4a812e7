"""Threads a case's host leaves running are charged to that case until they end."""

import threading

from toolsurface.harness._types import Role
from toolsurface.harness._watch import GRACE_ENDED, ThreadWatch, left_running


def test_a_thread_is_charged_to_the_case_that_started_it_until_it_ends():
    watch, release = ThreadWatch(), threading.Event()
    before = ThreadWatch.running()
    thread = threading.Thread(target=release.wait, name="retry")
    thread.start()
    watch.started(before, 7, Role.TARGET)
    watch.started(ThreadWatch.running() - {thread}, 8, Role.TARGET)  # already charged: stays the first case's
    assert watch.alive() == [(7, Role.TARGET)]
    (amendment,) = watch.unwatched(GRACE_ENDED)
    assert (amendment.index, amendment.role, amendment.unjudged) == (7, Role.TARGET, True)
    assert (
        amendment.note == "the host left 1 thread running ('retry') when the grace period ended: a later effect on its "
        "request cannot be ruled out"
    )
    release.set()
    thread.join()
    assert watch.alive() == [] and watch.unwatched(GRACE_ENDED) == []


def test_a_default_thread_name_keeps_its_target_not_its_counter():
    watch, release = ThreadWatch(), threading.Event()
    before = ThreadWatch.running()

    def keepalive():
        release.wait()

    threads = [threading.Thread(target=keepalive) for _ in range(2)]
    for thread in threads:
        thread.start()
    watch.started(before, 3, Role.RED)
    try:
        (amendment,) = watch.unwatched(GRACE_ENDED)
        assert amendment.note.startswith("the host left 2 threads running ('Thread (keepalive)', …) when")
    finally:
        release.set()
        for thread in threads:
            thread.join()


def test_cases_whose_worker_ended_are_each_named_once_with_their_count():
    notes = left_running([(2, Role.TARGET), (1, Role.RED), (2, Role.TARGET)], "when its worker process ended")
    assert [(a.index, a.role, a.note.split(" running")[0]) for a in notes] == [
        (1, Role.RED, "the host left 1 thread"),
        (2, Role.TARGET, "the host left 2 threads"),
    ]
