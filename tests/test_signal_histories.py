"""Change histories and READMEs: what a NEWS file, a ChangeLog or release notes say about failures
is talk about failures that were fixed; how such a file starts tells it from a run's report."""

from __future__ import annotations

from offloader.signal import read_signal

_AREAS = ["ledger", "billing", "orders", "refunds", "invoices", "tax", "audit", "search", "cart", "shipping"]


def _changes(release: int) -> list[str]:
    """What the notes of one release say, failure words and a quoted diagnostic included."""
    area, other = _AREAS[release % len(_AREAS)], _AREAS[(release * 3 + 1) % len(_AREAS)]
    return [
        f"* Fixed a crash when the {area} file is empty.",
        f"* Don't abort the {other} import when a row fails to parse.",
        f"  src/{area}/{other}.c:214:9: error: '{other}_total' undeclared (first use in this function)",
        f"* The {area} command now exits with status 2 when an account is missing.",
        f"* Avoid a segmentation fault on corrupted {other} records.",
    ]


def _releases(heading: str, under: list[str], releases: int = 30) -> list[str]:
    """``releases`` sections, newest first, each a version ``heading`` (``{v}`` is the version) over the
    ``under`` lines (``{rule}`` is the heading's underline) and the changes."""
    lines: list[str] = []
    for i in range(releases, 0, -1):
        title = heading.format(v=f"2.{i}.0")
        lines += [title, *(line.format(rule="=" * len(title)) for line in under), *_changes(i), ""]
    return lines


def _not_failing(lines: list[str]) -> bool:
    return not read_signal("\n".join(lines) + "\n").failing


def test_the_changes_alone_are_failure_evidence() -> None:
    # what every test below hides behind a history's start
    assert not _not_failing(_releases("", []))


def test_a_gnu_changelog_entry_header_starts_a_history() -> None:
    entries = []
    for day in range(1, 29):  # oldest first: only the first header tells (newest first, all of them would)
        entries += [f"2026-11-{day:02d}  Ada Lovelace  <ada@example.org>", ""]
        entries += ["\tsettle: avoid a crash on empty ledgers", *(f"\t{line}" for line in _changes(day)), ""]
    assert _not_failing(entries)
    assert _not_failing(["Fri Jul 24 10:16:24 CEST 2009 Ada Lovelace <ada@example.org>", "", *entries[2:]])
    assert not _not_failing(entries[2:])  # the same entries without a header first


def test_an_emacs_mode_line_starts_a_files_text() -> None:
    assert _not_failing(["GNU ledger NEWS                         -*- outline -*-", "", *_releases("* {v}", [])])


def test_a_history_title_among_the_first_lines_starts_a_history() -> None:
    for title in ("ledger NEWS -- history of user-visible changes.", "ChangeLog file for ledger", "News for ledger"):
        assert _not_failing([title, "", *_releases("Version {v}", [""])]), title
    assert _not_failing(["ledger", "", "What's new in ledger 2.31.0:", "", *_releases("{v}", [""])])
    assert _not_failing(["Changes in ledger 2.31.0", "", *_releases("{v}", [""])])


def test_a_tools_first_line_that_mentions_changes_is_no_title() -> None:
    # a sentence, or a mention of changes without a version: Django's autoreloader, git status
    # (two releases: three version headings, newest first, would make a history whatever the first line)
    for first in ("Watching for file changes with StatReloader", "Changes not staged for commit:"):
        assert not _not_failing([first, "", *_releases("Version {v}", [""], releases=2)]), first


def test_an_underlined_or_ruled_version_heading_starts_release_notes() -> None:
    assert _not_failing(_releases("ledger {v} (2026-09-01)", ["{rule}", ""]))
    assert _not_failing(_releases("=== release {v} ===", [""]))
    assert _not_failing(["-" * 20, "ledger 2.31.0", "-" * 20, *_releases("{v}", ["{rule}"])])


def test_a_tools_banner_over_a_rule_is_no_title() -> None:
    assert not _not_failing(_releases("Running ledger checks", ["{rule}", ""]))


def test_a_version_heading_over_a_list_of_changes_starts_release_notes() -> None:
    assert _not_failing(_releases("ledger-{v}", []))
    assert _not_failing(_releases("2026-11-02 ledger {v}", ["  Bug fixes"]))


def test_a_tool_that_prints_its_version_first_goes_on_with_its_report() -> None:
    report = ["mypy 1.5.1 (compiled: yes)", *(f"src/ledger_{i}.py: note: checked" for i in range(200))]
    report.insert(100, 'src/ledger.py:12: error: Incompatible return value type (got "str", expected "int")')
    assert not _not_failing(report)
    build = ["MSBuild version 17.7.1+971bf70db for .NET", "  Determining projects to restore..."]
    build += [f"  Ledger.{i} -> /src/bin/Ledger.{i}.dll" for i in range(200)]
    assert not _not_failing([*build, "/src/Ledger.cs(12,5): error CS1002: ; expected"])


def test_a_readme_under_an_underlined_title_starts_a_document() -> None:
    prose = [
        "Ledger settles the accounts of a shop every night and keeps a record of",
        "every transfer it makes, so that a failed night can be replayed.",
        "",
    ]
    assert _not_failing(
        ["Ledger on Debian", "================", "", *prose, *(line for i in range(40) for line in _changes(i))]
    )
    assert _not_failing(
        [
            "Reporting bugs",
            "==============",
            "",
            "Before you report",
            "-" * 17,
            *(line for i in range(40) for line in _changes(i)),
        ]
    )


def test_a_readmes_badges_or_centred_header_start_a_document() -> None:
    badge = "[![Build](https://ci.example.org/ledger.svg)](https://ci.example.org/ledger)"
    assert _not_failing([badge, "", *(line for i in range(40) for line in _changes(i))])
    assert _not_failing(
        [
            '<p align="center"><img src="logo.svg" alt="Ledger"></p>',
            "",
            *(line for i in range(40) for line in _changes(i)),
        ]
    )


def test_an_exit_status_after_a_document_still_says_the_run_failed() -> None:
    readme = ["# Ledger", "", *(line for i in range(40) for line in _changes(i))]
    assert _not_failing(readme)
    assert not _not_failing([*readme, "Traceback (most recent call last):", "KeyError: 'ledger'", "[exit status 1]"])


def _readme_with_code() -> list[str]:
    readme = ["# Ledger", ""]
    for i in range(20):
        readme += [f"Settle the {_AREAS[i % 10]} accounts with the command below.", "", "```sh"]
        readme += ["$ ledger settle", "Error: no ledger file (run ledger init first)", "```", ""]
    return readme


def test_a_failure_after_a_markdown_file_that_fences_its_code_is_the_runs() -> None:
    run = ["TAP version 13", "not ok 1 - refund total rounds to the cent", "# fail 1", "[exit status 1]"]
    signal = read_signal("\n".join([*_readme_with_code(), *run]) + "\n")
    failures = {u.lineno for u in signal.units if u.failure}
    assert len(_readme_with_code()) + 2 in failures  # the test runner's ``not ok``, not only the exit status
    assert _not_failing(_readme_with_code())  # the file's own fenced examples


_PRELUDE = [
    "-" * 60,
    "-- Copyright 2019-2026 the ledger authors; see COPYING for the terms of use. --",
    "-" * 60,
    "",
    "This is a log of the changes ledger has gone through, with who made them.",
    "",
]


def _entries(headings: list[str]) -> list[str]:
    """One entry per heading, in the order given: the heading, a blank line's absence, its indented changes."""
    lines = list(_PRELUDE)
    for i, heading in enumerate(headings):
        lines += [heading, *(f"\t{line}" for line in _changes(i)), ""]
    return lines


def test_dated_release_headings_newest_first_make_a_history_whatever_its_start() -> None:
    days = range(28, 0, -1)
    for headings in (
        [f"{day} November 2026: Ada" for day in days],
        [f"202611{day:02d}" for day in days],
        [f"v2.{month}.0 ({name} 2026)" for month, name in zip(range(12, 0, -1), _MONTH_NAMES[::-1], strict=True)],
        [f"2026/11/{day:02d}: Version 2.{day}.0 - Ada Lovelace (ada at example.org)" for day in days],
    ):
        assert _not_failing(_entries(headings)), headings[0]


def test_versioned_release_headings_newest_first_make_a_history() -> None:
    assert _not_failing(_entries([f"Version 2.{i}.1" for i in range(30, 0, -1)]))
    assert _not_failing(_entries([f"ledger-2.{i}" for i in range(30, 0, -1)]))


def test_dated_sections_oldest_first_are_a_runs_report() -> None:
    # a nightly job's sections go forward in time: what they say failed did fail
    assert not _not_failing(_entries([f"{day} November 2026: nightly settlement" for day in range(1, 29)]))


def test_dated_headings_with_a_clock_time_or_a_failure_word_are_no_releases() -> None:
    days = range(28, 0, -1)
    assert not _not_failing(_entries([f"2026-11-{day:02d} 02:00 nightly settlement" for day in days]))
    assert not _not_failing(_entries([f"2026-11-{day:02d}: settlement failed" for day in days]))


def test_two_release_headings_are_not_enough() -> None:
    assert not _not_failing(_entries(["2 November 2026: Ada", "1 November 2026: Ada"]))


_MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
