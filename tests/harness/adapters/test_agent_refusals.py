"""Which errors raised out of an agent's run are its request's refusal: a framework that tried the
request again and met the guard's refusal each time raises the attempts as one group."""

from __future__ import annotations

from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.harness._adapters._agent import refused_throughout


class ProviderRefused(RequestRefused):
    """A framework's own refusal, as a target names it."""


def framework(error: Exception) -> RequestRefused | None:
    return ProviderRefused("provider") if isinstance(error, ValueError) else None


def test_a_group_of_refusals_in_every_branch_is_the_first_of_them():
    first, second = CapacityExceeded(120, 100, 3), CapacityExceeded(120, 100, 3)
    nested = ExceptionGroup("fallback", [first, ExceptionGroup("retries", [second, ValueError("no tools")])])
    assert refused_throughout(nested, framework) is first
    # The framework's own refusal counts where the target names it so.
    (only,) = [refused_throughout(ExceptionGroup("fallback", [ValueError("x")]), framework)]
    assert isinstance(only, ProviderRefused)


def test_a_group_with_any_other_error_or_no_group_is_not_a_refusal():
    refused = CapacityExceeded(120, 100, 3)
    assert refused_throughout(ExceptionGroup("fallback", [refused, KeyError("model")]), framework) is None
    assert refused_throughout(BaseExceptionGroup("fallback", [refused, KeyboardInterrupt()]), framework) is None
    assert refused_throughout(refused, framework) is None
    assert refused_throughout(RuntimeError("crashed"), framework) is None
