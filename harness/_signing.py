"""Signatures on results.json: an HMAC-SHA256, keyed with a secret from the environment, of
everything the file holds but the signature itself.

The summary's digest catches a case line changed by accident, but whoever edits a file on purpose
can write its digest and totals again. A keyed signature cannot be made again without the key: a
file one CI job signed and a later job verifies with the same secret was not changed in between.

What is signed is the record as `run` writes it with `"signature": null` in the summary: for a file
laid out as `run` writes it, the file's own bytes with the signature's value put back to null. So
any tool can check a signature, and a reader checks it as it reads, a case at a time.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from toolsurface.common._errors import UsageError

#: The secret results.json is signed and verified with; unset or empty, nothing is signed.
SIGNING_KEY = "TOOLSURFACE_SIGNING_KEY"
#: Set to 1, every reader of results.json demands a verified signature, as `--require-signature` does.
REQUIRE_SIGNATURE = "TOOLSURFACE_REQUIRE_SIGNATURE"
#: The one scheme, written before the hex HMAC so that another could be told apart later.
SCHEME = "hmac-sha256"
_SIGNATURE = re.compile(rf"{SCHEME}:[0-9a-f]{{64}}")
_TRUE, _FALSE = ("1", "true", "yes"), ("", "0", "false", "no")


class Signer:
    """The signature of bytes fed to it in order; with no key, it takes them and signs nothing."""

    def __init__(self, key: bytes | None) -> None:
        self._mac = hmac.new(key, digestmod=hashlib.sha256) if key else None

    @property
    def signing(self) -> bool:
        return self._mac is not None

    def update(self, data: bytes) -> None:
        if self._mac is not None:
            self._mac.update(data)

    def signature(self) -> str | None:
        return None if self._mac is None else f"{SCHEME}:{self._mac.hexdigest()}"


class Signed(enum.Enum):
    """What reading found of a file's signature."""

    NO = "unsigned"
    VERIFIED = "verified"
    #: Signed, but read without the key: taken as it is, and said so.
    UNVERIFIED = "not verified"


def signing_key(environ: Mapping[str, str]) -> bytes | None:
    """The key in `TOOLSURFACE_SIGNING_KEY`, as the bytes the environment gave; None when unset or empty."""
    value = environ.get(SIGNING_KEY, "")
    return os.fsencode(value) if value else None


@dataclass(frozen=True)
class Trust:
    """How a reader holds results.json's signature: the key to verify it with, and what (a flag,
    the environment) demands a verified one, if anything does.

    With a key, every file read must carry a signature made with it: an unsigned file cannot be
    told from one whose signature was stripped. Without one, a signed file is read unverified,
    unless a verified signature is demanded: then nothing can be read.
    """

    key: bytes | None = None
    #: What demands a verified signature, as the user gave it (`--require-signature`); None: nothing.
    required_by: str | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str], require_flag: bool = False) -> Trust:
        """The key and the demand from the environment, and from the command's `--require-signature`."""
        if require_flag:
            return cls(signing_key(environ), "--require-signature")
        value = environ.get(REQUIRE_SIGNATURE, "")
        if value.strip().lower() not in _TRUE + _FALSE:
            raise UsageError(f"{REQUIRE_SIGNATURE}={value!r}: expected 1 (demand a verified signature) or 0")
        required = value.strip().lower() in _TRUE
        return cls(signing_key(environ), f"{REQUIRE_SIGNATURE}={value}" if required else None)

    def check_can_sign(self) -> None:
        """Refuse to write a file that could not be signed when a signature is demanded."""
        if self.key is None and self.required_by is not None:
            raise UsageError(
                f"{self.required_by} demands signed results, but {SIGNING_KEY} is not set: set it to the "
                "signing key (a secret)"
            )

    def check(self, path: Path, signature: str | None, expected: Callable[[], str | None]) -> Signed:
        """Hold the signature a file carries to this trust; `expected` works out the one it should
        carry (with `Signer(self.key)`). A one-line `UsageError` naming the file when it fails."""
        if signature is not None and not _SIGNATURE.fullmatch(signature):
            raise UsageError(f"{path}:$.summary.signature: expected {SCHEME}: and 64 hex digits, found {signature!r}")
        if signature is None:
            return self._unsigned(path)
        if self.key is None:
            if self.required_by is not None:
                raise UsageError(
                    f"{path}: signed, but {SIGNING_KEY} is not set to verify it, and {self.required_by} "
                    "demands a verified "
                    "signature: set it to the key the file was signed with"
                )
            return Signed.UNVERIFIED
        if not hmac.compare_digest(signature, expected() or ""):
            raise UsageError(
                f"{path}: signature does not match: altered after it was signed, or signed with another key"
            )
        return Signed.VERIFIED

    def _unsigned(self, path: Path) -> Signed:
        if self.key is not None:
            raise UsageError(
                f"{path}: not signed, but {SIGNING_KEY} is set: its signature was stripped, or it was "
                "written without the key; "
                "write it again with the key set"
            )
        if self.required_by is not None:
            raise UsageError(
                f"{path}: not signed, and {self.required_by} demands a verified signature: write it with "
                f"{SIGNING_KEY} set, "
                "and set the same key to read it"
            )
        return Signed.NO


def unverified_note(path: Path) -> str:
    """The line a command prints for a signed file it read without the key."""
    return f"{path}: signed, but not verified: {SIGNING_KEY} is not set"
