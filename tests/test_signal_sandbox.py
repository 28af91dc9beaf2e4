"""What a sandbox says about itself while a command runs in it is shown, but is no outcome of the command.

An agent's sandbox (a Docker container, an E2B box) has no init system, no terminal and no kernel of its own to
inspect; an interactive bash says so before every command (``bash -i`` without a terminal), Debian's package tools
on every install. The output below is a real ``apt-get install --reinstall
-y cron exim4-config`` run in this project's development container without ``DEBIAN_FRONTEND`` (the progress
line of dpkg's database reading is shortened): it succeeded.
"""

from __future__ import annotations

import pytest

from offloader.signal import make_preview, read_signal
from offloader.tokens import TiktokenCounter

COUNTER = TiktokenCounter()
APT_IN_A_CONTAINER = [
    "Reading package lists...",
    "Building dependency tree...",
    "Reading state information...",
    "debconf: delaying package configuration, since apt-utils is not installed",
    "0 upgraded, 0 newly installed, 2 reinstalled, 0 to remove and 123 not upgraded.",
    "Need to get 0 B/330 kB of archives.",
    "After this operation, 0 B of additional disk space will be used.",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "(Reading database ... 248293 files and directories currently installed.)",
    "Preparing to unpack .../cron_3.0pl1-162_amd64.deb ...",
    "Unpacking cron (3.0pl1-162) over (3.0pl1-162) ...",
    "Preparing to unpack .../exim4-config_4.96-15+deb12u11_all.deb ...",
    "Unpacking exim4-config (4.96-15+deb12u11) over (4.96-15+deb12u11) ...",
    "Setting up cron (3.0pl1-162) ...",
    "invoke-rc.d: could not determine current runlevel",
    "invoke-rc.d: policy-rc.d denied execution of restart.",
    "Setting up exim4-config (4.96-15+deb12u11) ...",
    "debconf: unable to initialize frontend: Dialog",
    "debconf: (No usable dialog-like program is installed, so the dialog based frontend cannot "
    "be used. at /usr/share/perl5/Debconf/FrontEnd/Dialog.pm line 78.)",
    "debconf: falling back to frontend: Readline",
    "debconf: unable to initialize frontend: Readline",
    "debconf: (This frontend requires a controlling tty.)",
    "debconf: falling back to frontend: Teletype",
    "Processing triggers for runit (2.1.2-54) ...",
    "Processing triggers for man-db (2.11.2-2) ...",
    "readline() on closed filehandle HENV at /usr/sbin/needrestart line 79.",
    "Use of uninitialized value in unpack at /usr/sbin/needrestart line 79.",
    "",
    "Failed to retrieve available kernel versions.",
    "",
    "The processor microcode seems to be up-to-date.",
    "",
    "No services need to be restarted.",
    "",
    "No containers need to be restarted.",
    "",
    "No user sessions are running outdated binaries.",
    "",
    "No VM guests are running outdated hypervisor (qemu) binaries on this host.",
]
#: The same packages on a box where cron's maintainer script fails: dpkg and apt say so themselves.
DPKG_FAILED = [
    "dpkg: error processing package cron (--configure):",
    " installed cron package post-installation script subprocess returned error exit status 1",
    "Errors were encountered while processing:",
    " cron",
    "E: Sub-process /usr/bin/dpkg returned an error code (1)",
]


def _padded(lines: list[str]) -> str:
    """The install after a long listing of the packages a build had already unpacked."""
    before = [f"Unpacking libfailed-payments{i}:amd64 (1.{i}-1) ..." for i in range(200)]
    return "\n".join([*before, *lines]) + "\n"


def test_a_clean_install_in_a_container_is_not_called_failing() -> None:
    assert not read_signal(_padded(APT_IN_A_CONTAINER)).failing


@pytest.mark.parametrize(
    "notice",
    [
        "invoke-rc.d: could not determine current runlevel",
        "invoke-rc.d: policy-rc.d denied execution of restart.",
        "debconf: unable to initialize frontend: Dialog",
        "debconf: (This frontend requires a controlling tty.)",
        "Failed to retrieve available kernel versions.",
        "bash: cannot set terminal process group (21686): Inappropriate ioctl for device",
    ],
)
def test_each_sandbox_notice_alone_is_no_failure_evidence(notice: str) -> None:
    lines = [f"Setting up libretry-queue{i} (2.{i}-1) ..." for i in range(200)]
    lines.insert(120, notice)
    signal = read_signal("\n".join(lines) + "\n")
    assert not signal.failing
    assert 121 in [u.lineno for u in signal.units]


def test_a_failed_maintainer_script_among_the_notices_is_the_failure() -> None:
    at = APT_IN_A_CONTAINER.index("Setting up exim4-config (4.96-15+deb12u11) ...")
    lines = [*APT_IN_A_CONTAINER[:at], *DPKG_FAILED, *APT_IN_A_CONTAINER[at:]]
    signal = read_signal(_padded(lines))
    failures = {lines[u.lineno - 201] for u in signal.units if u.failure}
    assert failures >= {DPKG_FAILED[0], DPKG_FAILED[-1]}
    assert not any("invoke-rc.d" in line or "debconf" in line for line in failures)


def test_a_sandbox_notice_is_still_shown_in_the_preview() -> None:
    preview = make_preview(_padded(APT_IN_A_CONTAINER), counter=COUNTER, preview_tokens=300)
    assert "invoke-rc.d: could not determine current runlevel" in preview


def test_a_failure_of_the_same_program_is_still_failure_evidence() -> None:
    lines = [f"Setting up libretry-queue{i} (2.{i}-1) ..." for i in range(200)]
    lines.insert(80, 'debconf: DbDriver "config": could not write /var/cache/debconf/config.dat-new: Permission denied')
    assert read_signal("\n".join(lines) + "\n").failing
