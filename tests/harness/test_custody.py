"""What a target's factory changes of the process it is loaded in is put back when it returns."""

import os
import signal
import sys
import types

from toolsurface.harness._custody import kept_process


def test_signal_handlers_directory_streams_modules_and_umask_are_put_back(tmp_path):
    handler = signal.getsignal(signal.SIGTERM)
    cwd, stdout, umask = os.getcwd(), sys.stdout, os.umask(0o022)
    os.umask(umask)
    json_module = sys.modules["json"]
    with kept_process():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.chdir(tmp_path)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (left open: the test is that it is put back)
        sys.modules["json"] = types.ModuleType("json")
        del sys.modules["signal"]
        sys.modules["a_module_of_the_factory"] = types.ModuleType("a_module_of_the_factory")
        os.umask(0o077)
    assert signal.getsignal(signal.SIGTERM) is handler
    assert os.getcwd() == cwd and sys.stdout is stdout
    assert sys.modules["json"] is json_module and sys.modules["signal"] is signal
    # What the factory loaded for itself stays loaded: its target may need it.
    assert "a_module_of_the_factory" in sys.modules
    del sys.modules["a_module_of_the_factory"]
    assert os.umask(umask) == umask


def test_closed_standard_file_descriptors_are_opened_again(tmp_path):
    saved = os.dup(2)
    try:
        with kept_process():
            os.close(2)
        os.write(2, b"")  # open again: writing raises EBADF on a closed descriptor
        assert os.fstat(2).st_ino == os.fstat(saved).st_ino
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def test_what_the_block_raises_still_puts_everything_back(tmp_path):
    cwd = os.getcwd()
    try:
        with kept_process():
            os.chdir(tmp_path)
            raise ValueError("the factory failed")
    except ValueError:
        pass
    assert os.getcwd() == cwd
