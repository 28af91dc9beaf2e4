"""The POSIX helpers Docker and E2B share: exit-code mapping and the grep-prefilter policy.

The prefilter hands grep literals only, never the user's regex; these tests pin
which literals are proven and that no file the RE2 regex matches is ever dropped
(``workspaces.testing`` runs the same check through each backend's own grep).
"""

from __future__ import annotations

import errno

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offloader.core.errors import InvalidPattern, NotEnoughSpace, PathOutsideWorkspace, UnsupportedOperation
from offloader.core.text import compile_pattern
from workspaces import _posix
from workspaces._posix import required_literals


@pytest.mark.parametrize(
    ("pattern", "ignore_case", "literals"),
    [
        ("ERROR", False, ["ERROR"]),
        ("ERROR|FAILED", False, ["ERROR", "FAILED"]),
        ("undefined reference to .*frob", False, ["undefined reference to "]),
        ("module_234\\.c:17", False, ["module_234.c:17"]),
        ("colou?r", False, ["colo"]),
        ("ab+c", False, ["ab"]),
        ("x{2,3}yz", False, ["yz"]),
        ("timeout after \\d+ seconds", False, ["timeout after "]),
        ("Success", True, ["ucce"]),  # s and k fold to non-ASCII letters in RE2
        ("(?i)error", False, None),
        ("[0-9]+", False, None),
        ("a|.*", False, None),
        ("caf\u00e9", True, ["caf"]),
    ],
)
def test_required_literals_are_text_every_match_contains(
    pattern: str, ignore_case: bool, literals: list[str] | None
) -> None:
    assert required_literals(pattern, ignore_case=ignore_case) == literals


@settings(max_examples=400, deadline=None)
@given(
    pattern=st.text(alphabet="abkS.|*+?{}2,\\^$", min_size=1, max_size=8),
    text=st.text(alphabet="abkKS\u017f\u212a\n{},.|", max_size=12),
    ignore_case=st.booleans(),
)
def test_the_prefilter_never_drops_a_file_the_regex_matches(pattern: str, text: str, ignore_case: bool) -> None:
    try:
        regex = compile_pattern(pattern, ignore_case=ignore_case)
    except InvalidPattern:
        return
    literals = required_literals(pattern, ignore_case=ignore_case)
    if literals is None or not regex.search(text.encode()):  # type: ignore[attr-defined]
        return
    haystack = text.lower() if ignore_case else text  # grep -i in the C locale folds ASCII only
    assert any((lit.lower() if ignore_case else lit) in haystack for lit in literals)


@pytest.mark.parametrize(
    ("code", "stderr", "kind"),
    [
        (_posix.EXIT_OUTSIDE, "", PathOutsideWorkspace),
        (_posix.EXIT_MISSING, "", FileNotFoundError),
        (_posix.EXIT_ISDIR, "", IsADirectoryError),
        (1, "write error: No space left on device", NotEnoughSpace),
        (127, "sh: realpath: not found", UnsupportedOperation),
        (1, "tar: Permission denied", PermissionError),
        (2, "something else", OSError),
    ],
)
def test_exit_codes_map_to_precise_exceptions(code: int, stderr: str, kind: type[Exception]) -> None:
    exc = _posix.exit_error(code, stderr, "/ws/a.txt", doing="reading", where="the box")
    assert type(exc) is kind or (kind is OSError and type(exc) is OSError and exc.errno == errno.EIO)


def test_the_prefilter_passes_literals_as_fixed_strings_never_the_regex() -> None:
    argv = _posix.grep_prefilter("ERROR|time.*out", "sessions", ignore_case=True)
    assert argv == ["grep", "-r", "-l", "-s", "-F", "-i", "-e", "ERROR", "-e", "time", "--", "./sessions"]
    assert _posix.grep_prefilter("(a+)+$", "", ignore_case=False) is None
    assert _posix.grep_candidates("./a/b.txt\n../escape\nc.txt\n") == ["a/b.txt", "c.txt"]
