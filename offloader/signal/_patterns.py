"""The one table of outcome priors, and the one-pass scanner that finds candidate lines.

Every decision about which lines matter starts here. Each prior is a regular
expression in the subset that Hyperscan, RE2 and Python's ``re`` all read the same
way, with a kind and a weight:

* ``fail``: evidence of a failure (``error:`` labels, exceptions, ``FAILED``,
  ``panicked at``, ``not ok``, ``No such file or directory``, non-zero exit status);
* ``word``: failure words used in prose (``error``, ``failing``), weaker evidence;
* ``warn``: warnings and deprecations;
* ``summary``: outcome summaries (``3 failed, 1997 passed``, ``test result:``,
  ``Result: PASS``, ``Found 3 errors``, ``Successfully installed``);
* ``frame``: structure (``Caused by:``, a traceback header, a compiler's location).

The scanner only *finds* candidate lines (one pass over the bytes); the ranking
(``_rank``) classifies each candidate line with the same table.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]

from ._locales import (
    LOCALIZED_ERROR_NOUN,
    LOCALIZED_ERRORS,
    LOCALIZED_FAILURE,
    LOCALIZED_LABEL,
    LOCALIZED_PROBLEM,
    LOCALIZED_WARNING,
    LOCALIZED_WORDS,
)
from ._multiplex import after_prefix

__all__ = [
    "CHECKED_UNITS",
    "CLEAN_VERDICT",
    "EXIT_STATUS_LINE",
    "FAILED_VERDICT",
    "FAILURE_COUNT",
    "HEALTHY",
    "HEALTHY_WORDS",
    "LEVEL_AT_LOCATION",
    "LOCATED",
    "LOCATED_DIAGNOSTIC",
    "NOT_A_PROGRAM",
    "PRIORS",
    "PROGRAM_NAME",
    "TOOL_DIAGNOSTIC",
    "UNIT_CLEAN_VERDICT",
    "Prior",
    "Scanner",
    "classify",
    "make_scanner",
    "passed_after_leader",
    "without_healthy",
]

_log = logging.getLogger("offloader.signal")


@dataclass(frozen=True, slots=True)
class Prior:
    pattern: str
    kind: str  # fail | word | warn | summary | frame
    weight: float
    caseless: bool = True

    @property
    def line_start_only(self) -> bool:
        """Whether every alternative of the pattern starts with ``^`` (it matches at a line start or nowhere)."""
        return all(alternative.startswith("^") for alternative in _top_level_alternatives(self.pattern))


def _top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at the ``|`` outside groups and character classes."""
    parts: list[str] = []
    depth, start, i, in_class = 0, 0, 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":  # a "]" first is a member
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


_NUM = r"[0-9][0-9,]*"

# The long patterns of the table, named for what they catch.
_LOG_LEVEL_ERROR = (
    r'"(level|severity|lvl|levelname)"\s*:\s*"(error|err|fatal|critical|crit|emerg|alert|panic)"'
    r"|\b(level|severity|lvl)=\"?(error|err|fatal|critical|crit|panic)\b"
)
_NONZERO_EXIT = (
    r"exit(ed)?( with)?( code| status)[ :=]*[1-9]|returned (a )?non-zero|non-zero (exit )?(status|code)[ :=]*[1-9]"
    r"|exit status [1-9]|^[+ ]*exit [1-9][0-9]{0,2}[ \t]*$"
    r"|returned [1-9][0-9]* exit status|\bexited \([1-9]|\breturn code[ :=]+[1-9]"
    r"|\bexit(ing|ed)? with (a )?(failure|error) status\b"
    # a field that holds it: docker's ``exitCode=3`` (events) and ``"ExitCode": 137`` (inspect), ``exit_code: 2``
    r"|\bexit_?code[\"']?[ \t]*[:=][ \t]*[1-9]"
    # a process manager's ``retry_queue.1 stopped (rc=1)`` (a negative code is a signal it sent: ``rc=-15``)
    r"|\((rc|exit)=[1-9][0-9]{0,2}\)"
)
#: An exception with its message, where a raised one is printed: first on its line, or after a
#: label, quote or bracket ("KeyError: 'x'", "Caused by: java.io.IOException: ...", "Uncaught TypeError: ..."),
#: or after the bar that ends a service's prefix (docker compose's ``orders_1  | ValueError: ...``), or after the
#: word jshell puts first (``Exception java.lang.IllegalStateException: ...``, ``|  Exception ...``); a private
#: class's name too (gRPC's ``grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:``).
#: Not a name inside prose or code ("except TypeError:", "inherited from builtins.ValueError:").
_RAISED = (
    r"(^[ \t]*|[:\]>\"'(=|] *|\b(Uncaught|Unhandled) |^[ \t|]*Exception )([A-Za-z_][A-Za-z0-9_]*\.)*"
    r"_*[A-Z][A-Za-z0-9]*(Error|Exception|Failure|Fault)( \[[^\]]*\])?:"
)
#: Ruby's report of an exception nobody rescued: where, then the message, then the class in brackets
#: (``app.rb:3:in `divide': divided by 0 (ZeroDivisionError)``, ``... @ rb_sysopen - /x (Errno::ENOENT)``).
_RUBY_RAISED = r":[0-9]+:in [`'][^'\n]*': .*\(([A-Z][A-Za-z0-9_]*::)*[A-Z][A-Za-z0-9_]*\)[ \t]*$"
_FAULT_WORDS = (
    r"\b(denied|refused|forbidden|unauthorized|timed out|timeout|unreachable|undeclared|undefined|"
    r"unresolved|mismatch(ed)?|incompatible|invalid|incorrect|illegal|unexpected|violat(es|ed|ion)|conflict|"
    r"corrupt(ed)?|overflow|leak(ed|s)?|definitely lost|unknown|unrecogni[sz]ed)\b"
)
#: A diagnostic's location in front of its message: ``src/app.c:12:7: ...``, ``x.sh:4:16: reached EOF ...``.
_LOCATION_PREFIX = r"^[^\s:]+:[0-9]+(:[0-9]+)?: "
#: The same, for a line already read (the message starts after it).
LOCATED = re.compile(_LOCATION_PREFIX + r"\S")
#: A JSON member naming a failure, with a value on its line (a pattern of one line: the scanners see lines alike).
_JSON_ERROR_FIELD = (
    r'"(error|errors|failure|failures|exception|fatal|err)"[ \t]*:[ \t]*'
    r'("[^"]|\[[ \t]*[^\]\s]|\{[ \t]*[^}\s]|true|[1-9])'
)
#: A count in front of an outcome: not the minutes of a time (``ls -l``'s ``09:00 failed``, a folder's name),
#: nor a version's last part (``new Go 1.13 error values``), nor the number of an id (``payment PAY-10017 failed``).
_COUNT = rf"(^|[^\w:.-]|(^|[^\w\n])-){_NUM}"
_COUNTED_OUTCOMES = (
    rf"{_COUNT} (passed|failed|errors?|failures?|skipped|xfailed|xpassed|warnings?|tests?|problems?|"
    r"issues?|pass|fail|todo|cancelled|succeeded|deselected|incorrect|rejected|ignored|matched|missed"
    r"|bugs? (found|detected|reported))\b"
)
_OUTCOME_TALLIES = (
    r"\b(tests?|passed|failed|failures|errors|skipped|pass|fail|ok) ?[:=] ?[0-9]+\b"
    # (within its line: ``\s`` and ``\W`` would reach the next one, which Hyperscan and RE2 then read apart)
    r"|^[^\w\n]{0,3}(pass|fail|tests|passed|failed|failures|errors|skipped|todo|cancelled) [0-9]+[ \t\r]*$"
)
#: Where the noun of a counted phrase ends it (``1 fatal error.``, ``10 previous errors in 3 files``): not an
#: adjective before another noun (``270 validation error events``).
_PHRASE_END = (
    r"([ \t]*([.,;:)!]|$)| (in|at|on|found|detected|occurred|generated|reported|emitted|were|was|during|while|and"
    r"|so)\b)"
)
#: Errors or failures after one word that qualifies them (``fatal error``, ``previous errors``), ending the phrase.
_QUALIFIED_FAILURES = rf"[a-z]+ (errors?|failures?){_PHRASE_END}"
#: A count and what it counts (one to three words of any script, no digits or commas).
_COUNTED = r"[0-9]+ [^\s,0-9]+( [^\s,0-9]+){0,2}"
_TALLY = rf"(^|[^\w:.,]){_COUNTED}, {_COUNTED}, ([^\s,0-9]+ )?{_COUNTED}"
#: go test's clean verdict on one package (``ok  <tab>example.com/pkg<tab>0.005s``).
_GO_PACKAGE_OK = r"^ok  \t"
#: The same verdict as ``go test -json`` says it, an event of the package with no test (``{}``: the action).
_GO_JSON_PACKAGE = r'"Action":"{}","Package":"[^"]*","Elapsed"'
#: What a runner counts besides tests, in its verdict (``# all 180 checks passed``, ``12 specs failed``).
CHECKED_UNITS = ("check", "spec", "example", "suite", "case", "scenario", "assertion")
_CHECKED_UNITS = f"({'|'.join(f'{unit}s' for unit in CHECKED_UNITS)})"
_RUNNER_VERDICTS = (
    r"test result:|\bResult: |\bAll tests successful\b|\bBUILD (SUCCESS|SUCCESSFUL|SUCCEEDED|FAILED|FAILURE)\b|"
    r"tests passed|tests failed|^Ran [0-9]+ tests?|^(OK|FAILED)( \(|$)|^Files=[0-9]+"
    rf"|\b[0-9][0-9,]* {_CHECKED_UNITS} (passed|failed)\b"
    rf"|(?-i:{_GO_PACKAGE_OK}|^FAIL\t)"  # go test's verdict on one package
    rf"|(?-i:{_GO_JSON_PACKAGE.format('(pass|fail)')})"
)
_TOOL_VERDICTS = (
    r"\b(Found [0-9]+ (errors?|problems?)|no issues found|All checks passed|Successfully (installed|built|tagged)|"
    r"(added|removed|changed|updated|resolved|installed|audited|prepared|uninstalled|downloaded) [0-9]+ packages?|"
    r"[0-9]+ upgraded|compiled successfully|Finished|[0-9]+ files? changed)\b"
    # a server's word that it is up (Tomcat's ``Server startup in [1234] milliseconds``, Spring Boot's ``Started App
    # in 3.2 seconds``)
    r"|\b(Server startup|Started [A-Za-z0-9_.$]+) in \[?[0-9][0-9.,]*\]? ?(ms|milliseconds|s|seconds)\b"
    # R CMD check's closing line (``Status: OK``, ``Status: 1 ERROR, 2 WARNINGs``)
    r"|^Status: (?-i:OK|[0-9]+ (ERROR|WARNING|NOTE)s?\b)"
    # a report's totals row (coverage's ``TOTAL``, callgrind's ``PROGRAM TOTALS``, ``Total: 3 files``), not a
    # name that holds the word (a test ``BILLING-TOTAL.3``)
    r"|(^|[^\w.\n-])(?-i:TOTALS?)([^\w.\n-]|$)|^[ \t]*(?-i:Totals?):"
)

#: A program's diagnostic: its name starts the line, then what went wrong. A level word in
#: the name's place (``warning: invalid ...``) is no program, nor is ``usage:`` (see :data:`NOT_A_PROGRAM`).
_PROGRAM = r"[a-z][a-z0-9_+-]{1,30}(\.[a-z0-9]+)?(\[[0-9]+\])?: "  # ``iconv: ``, ``make[1]: ``, ``identify-im6.q16: ``
#: A program's name starting a line, as it starts its own messages (``grep: x.db: binary file matches``).
PROGRAM_NAME = re.compile(_PROGRAM)
#: What a diagnostic names as its problem, after a program's name or a location.
_DIAGNOSED_PROBLEM = (
    r"cannot|can't|could not|couldn't|unable to|failed to|no such|not found|permission denied|not permitted|refused|"
    r"illegal|invalid|corrupt(ed)?|unrecognized|timed out|requires|missing|undefined|mismatch(ed|es)?|malformed|"
    r"incompatible|unexpected"
)
TOOL_DIAGNOSTIC = Prior(
    # a message that starts with its level (``tar: Error is not recoverable: exiting now``), or names the problem
    # (``mlr: mlr: CSV header/data length mismatch 10 != 11 at filename ...``), not an option that names one
    # (``autoreconf: running: automake --add-missing --copy --force-missing``)
    rf"^{_PROGRAM}(?i:(error|fatal)\b|(.*[^\w-])?({_DIAGNOSED_PROBLEM})\b)",
    "fail",
    3.0,
    caseless=False,
)
#: A location in front of a message, its file's name maybe already removed (see ``_rank.weights``), or gnuplot's
#: quoted one (``"plots/06_daily.gp" line 6: unrecognized plot type``).
_ANY_LOCATION = r"^([ \t]?[^\s:\"'{}\[\]]*:[0-9]+(:[0-9]+)?|\"[^\"\n]+\",? line [0-9]+): "
LOCATED_DIAGNOSTIC = Prior(
    # a message at a location that names the problem (``plots/x.gp:6: unrecognized plot type``); not one that
    # starts with its level (see :data:`LEVEL_AT_LOCATION`)
    rf"{_ANY_LOCATION}(?i:([^\s].*[^\w-])?({_DIAGNOSED_PROBLEM})\b)",
    "fail",
    3.0,
    caseless=False,
)
#: A level word, or a warning's class (``SyntaxWarning: invalid escape sequence``), right after a location.
LEVEL_AT_LOCATION = re.compile(
    rf"{_ANY_LOCATION}[ \t]*(\w*warning|warn|note|info|information|hint|help|debug|notice|remark|"
    r"deprecated|tip)\b",
    re.IGNORECASE,
)
#: A line that only says how the run ended: ``[exit status 1]``, ``Exit code: 2``, ``exited with code 1``.
EXIT_STATUS_LINE = re.compile(
    r"(?i)\[?(exit(ed)?( with)? (code|status)|exit code|return code)[ :=]*[1-9][0-9]{0,2}\]?\.?"
)
#: A level word where a program's name would be (``warning: invalid ...``), or right after it
#: (``cc1: warning: command-line option ... is invalid``): a level, not a program's diagnostic;
#: and ``usage:``, which heads a synopsis (``usage: stubtest [--ignore-missing-stub]``).
NOT_A_PROGRAM = re.compile(
    rf"^({_PROGRAM} *)?(warn|warning|note|info|hint|help|debug|trace|notice|tip|remark|"
    r"deprecated|usage)\b",
    re.IGNORECASE,
)

PRIORS: tuple[Prior, ...] = (
    # failure evidence: labels, exceptions, runner verdicts, OS errors
    # a label, not the last part of a dotted name (``Methods inherited from builtins.Exception:``), maybe with
    # its code (``error CS1002:`` of C# and MSBuild, ``error TS2322:``, MSVC's ``fatal error C1083:``) or where
    # (sqlite3's ``Parse error near line 3: no such column: refund_id``); a part of a ``::`` path
    # (Rust's and C++'s ``core::panic::unwind_safe`` in a backtrace) is no label; libxml2 puts a space before the
    # colon (``catalog.xml:56: element product: validity error : Element product content does not follow ...``),
    # fdtget a quoted node (``Error at '/gpio-keys/retry-button': FDT_ERR_NOTFOUND``), bc its state in brackets
    Prior(
        r"(^|[^.:\w]|(^|[^:]):)(error|fatal|failure|failed|critical|emerg|alert|panic|exception)\b"
        r"( \[[^\]]*\]| [A-Z]{1,5}[0-9]{1,5}| (near|at|on|in) line [0-9]+| at '[^'\n]*'"
        r"| \(([^()\n]|\([^()\n]*\))*\))? ?:([^:\n]|$)",
        "fail",
        3.0,
    ),
    # a level in brackets, after a time or not ("[error]", "[05:17:44 ERR]")
    Prior(r"\[([0-9][0-9:.T -]* )?(error|err|fatal|ftl|fail|failed|failure|emerg|crit|critical)\]", "fail", 3.0),
    # glog/klog/absl: the level letter starts the line ("E1201 05:39:05.001122 4242 sync.go:120] ...")
    Prior(r"^[EF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}", "fail", 3.0, caseless=False),
    # (``SEVERE``: java.util.logging's error level, as Tomcat logs it)
    Prior(r"\b(ERROR|FATAL|FAILED|FAILURE|FAIL|CRITICAL|PANIC|ABORTED|SEVERE)\b", "fail", 3.0, caseless=False),
    # (a code in brackets after the level: rustc's ``error[E0502]:``, ty's ``error[missing-attribute]:``)
    Prior(r"^(E|F|error|fatal)(\[[A-Za-z0-9_-]+\])?(:| {2,})|^(error|fatal) ", "fail", 3.0, caseless=False),
    # a failure's heading over its details (``Error in rule aggregate:``, ``Failure while settling ledger:``)
    Prior(
        r"^(Error|ERROR|Fatal|FATAL|Failure|FAILURE) (in|while|during|at|on|for|executing|running) [^:\n]*:[ \t]*$",
        "fail",
        3.0,
        caseless=False,
    ),
    Prior(_RAISED, "fail", 3.0, caseless=False),
    Prior(_RUBY_RAISED, "fail", 3.0, caseless=False),
    # a runtime's word that nobody handled what was raised: .NET's ``Unhandled exception. System.Invalid...``,
    # SBCL's ``Unhandled SIMPLE-ERROR in thread #<SB-THREAD:THREAD "main thread" RUNNING``
    Prior(r"^[ \t]*Unhandled ([Ee]xception[.:]|[^\n]{0,120}[ \t]in thread #<)", "fail", 3.0, caseless=False),
    # an exception's name starting its line, not a file named after one (mcs's ``FailedPaymentException.cs(22,25):
    # warning CS0618: ...``)
    Prior(
        r"^([A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*(Error|Exception|Exit|Interrupt)([^.\w\n]|$)",
        "fail",
        3.0,
        caseless=False,
    ),
    # (and GHC's stack of an ``error`` call, under its message: ``CallStack (from HasCallStack):``)
    Prior(
        r"Traceback \(most recent call last\)|\bpanicked at\b|^not ok\b|\bnot ok [0-9]+\b|^Bail out!"
        r"|^CallStack \(from HasCallStack\):",
        "fail",
        3.0,
    ),
    Prior(_LOG_LEVEL_ERROR, "fail", 3.0),
    # crashes, a dead process its parent never reaped (ps's ``[pg_dump] <defunct>``), and the reports of the
    # sanitizers that stop one (ASan, TSan, MSan, LSan, UBSan)
    Prior(
        r"segmentation fault|core dumped|\bkilled\b|out of memory|bus error|\baborted\b|<defunct>"
        # a deadlock found (jstack's ``Found one Java-level deadlock:``, PostgreSQL's ``deadlock detected``)
        r"|\bFound (one|[1-9][0-9]*) ([A-Za-z-]+ )?deadlocks?\b|\bdeadlock (detected|found)\b"
        r"|\b(address|thread|memory|leak|undefinedbehavior)sanitizer:",
        "fail",
        3.0,
    ),
    # a stack overflow in any case but the title case of the question site a README points to ("Stack Overflow")
    Prior(r"\b([Ss]tack overflow|STACK OVERFLOW)\b", "fail", 3.0, caseless=False),
    # a run's tally of failed things by their name, starting its line (ab's ``Failed requests:        12``,
    # ``Errors found: 3``; not a report's statistic, ``Number of failed authentications: 462``); before the
    # failure words, which would take its place
    # (the count alone after the colon: ``errors exceptions: 50 checks passed`` counts checks, not errors)
    Prior(r"^[ \t]*(failed|failures|errors)[ \t]+[a-z]+[ \t]*:[ \t]*[1-9][0-9,]*[ \t]*($|[(\[,;])", "fail", 3.0),
    Prior(r"\b(failed|failing|fails|errored)\b", "fail", 2.5),
    # a test runner's mark for a failed item starting its line (jest's ``✕ splits a refund (1ms)``, node's
    # ``✖ balances ...``, bats' and mocha reporters' ``✗``; not a tally, ESLint's ``✖ 40 problems (0 errors, ...)``),
    # and jest's heading over a failed test's report (``● refunds › splits a refund``; its ``● Console`` heads
    # logged output, without a ``›``)
    # (the marks as alternatives: Hyperscan reads a pattern as bytes, and a class of them as one byte)
    Prior(r"^[ \t]*(✕|✖|✗|✘)[ \t]+[^\s0-9]|^[ \t]*● \S.* › \S", "fail", 3.0),
    # make's fatal error, its own or at a makefile's line (``Makefile:12: *** missing separator.  Stop.``)
    Prior(
        r"^(g?make|ninja|cmake)(\[[0-9]+\])?: \*\*\*|:[0-9]+: \*\*\* |\bError [1-9][0-9]*$|\bERR!|^npm error\b",
        "fail",
        3.0,
        caseless=False,
    ),
    Prior(_NONZERO_EXIT, "fail", 3.0),
    # a container's state in a table: ``docker-compose ps``'s ``Exit 1`` (``Exit 0`` when it ended well)
    Prior(r"\bExit [1-9][0-9]{0,2}([ \t]|$)", "fail", 3.0, caseless=False),
    # "subject: not found" as a verdict ("sh: 1: foo: not found", "libmeter.so => not found"), or what a
    # dependency maps to (jdeps' ``app.jar -> not found``, ``a.B -> c.D   not found``)
    Prior(r"(:|=>|->) *(command )?not found *$|(=>|->) *[^\s>]+ +not found *$", "fail", 3.0),
    # a mail server's permanent refusal: an SMTP reply code 5xx with its enhanced status 5.x.x (swaks' ``<** 535 5.7.8
    # Authentication credentials invalid``, exim's ``... after RCPT TO:<x>: 550 5.1.1 ...``, postfix's ``status=bounced
    # (host ... said: 550 5.1.1 ...)``); a temporary one (4xx 4.x.x) is retried
    Prior(r"\b5[0-9][0-9][ -]5\.[0-9]{1,3}\.[0-9]{1,3}\b", "fail", 3.0, caseless=False),
    # a message that starts with the word and says where or while doing what (at's ``Error in day of month.``,
    # R's ``Error in f(x) : ...``, ``Error while loading shared libraries: ...``, ``Error opening file ...``)
    Prior(
        r"^[ \t]*(Error|ERROR) (in|while|during|when|opening|reading|writing|loading|parsing|executing|running|"
        r"processing|creating|connecting|sending|receiving|calling|compiling|building|installing|resolving|fetching)\b",
        "fail",
        3.0,
        caseless=False,
    ),
    # container states that mean a crash (Kubernetes, container runtimes)
    Prior(
        r"[A-Za-z]*BackOff\b|\bErrImagePull\b|\bOOMKilled\b|\bCreateContainer(Config)?Error\b",
        "fail",
        3.0,
        caseless=False,
    ),
    # a check's verdict in capitals: ``Chain of trust  NOT ok (expired)``, ``VULNERABLE``, chkrootkit's ``INFECTED``,
    # a component's state changed to down (haproxy's ``Server be_ledger/ledger-1 is DOWN.``)
    Prior(r"\bNOT (ok|OK)\b|\b(VULNERABLE|INFECTED)\b|\b(is|went|now|marked) DOWN\b", "fail", 3.0, caseless=False),
    # a bisection's verdict: a change broke it (git bisect, hg bisect)
    Prior(r"\bis the first bad commit\b|^The first bad revision is:", "fail", 3.0),
    # a failed test's or package's event in ``go test -json``
    Prior(r'"Action":"fail"', "fail", 3.0, caseless=False),
    # a JUnit XML report's failed or errored test case (``<failure message="..."``, ``<error type="..."``)
    Prior(r"<(failure|error)[ \t>/]", "fail", 3.0, caseless=False),
    # an audit's verdict that it found known vulnerabilities (pip-audit's ``Found 1 known vulnerability in 1
    # package``; npm's ``3 vulnerabilities (1 low, 2 high)`` also closes a successful ``npm install``)
    Prior(r"\bFound [1-9][0-9,]* known vulnerabilit(y|ies)\b", "fail", 3.0),
    # redis-cli's reply to a command that failed (``(error) NOGROUP No such key ...``); it exits 0 all the same
    Prior(r"^\(error\) ", "fail", 3.0, caseless=False),
    # an exception told by its repr after a label (a worker's ``job 317 buried: ValueError('card expired')``)
    Prior(r"[:=] *([A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9]*(Error|Exception)\(['\"]", "fail", 2.5, caseless=False),
    # a merge left unfinished (git, hg and svn word it so)
    Prior(r"\bunmerged paths\b|\bunresolved conflicts?\b|\bCONFLICT \(|^Summary of conflicts:", "fail", 3.0),
    # a ref a push could not update (git's `` ! [remote rejected] main -> main (hook declined)``)
    Prior(r"^[ \t]*! \[(remote )?rejected\]", "fail", 3.0),
    # a report that starts with the error's happening (the AWS CLI's ``An error occurred (NoSuchBucket) when
    # calling ...``, ``An unexpected error has occurred: ...``), not a sentence that mentions one
    Prior(r"^[ \t]*(an? )?([a-z]+ )?error (has )?occurred\b", "fail", 3.0),
    Prior(
        r"\b(cannot|can't|could not|couldn't|unable to|did not|does not exist|not found|not defined|no such|"
        r"refusing to|refuses to)\b",
        "fail",
        2.5,
    ),
    # a program's own diagnostic, as Unix tools print them ("iconv: illegal input sequence at position
    # 725", "cp: cannot stat 'x': No such file or directory", "ln: failed to create symbolic link")
    TOOL_DIAGNOSTIC,
    LOCATED_DIAGNOSTIC,
    # a signature or checksum that does not verify (gpg's ``BAD signature from ...``, minisign's ``Signature
    # verification failed``, ``openssl dgst``'s ``Verification failure``)
    Prior(
        r"BAD signature\b|^[ \t]*Verification [Ff]ailure\b"
        r"|(?i:\b(signature|checksum|digest|certificate|integrity) verif(y|ication) fail(ed|ure)\b)",
        "fail",
        3.0,
        caseless=False,
    ),
    # pip's word that installed packages conflict (``pip check``'s ``x 1.3.0 has requirement retry-queue<2.0, but you
    # have retry-queue 2.1.0.``, the resolver's ``x requires y<2.0, but you have y 2.1.0 which is incompatible.``)
    Prior(r"\b(has requirement|requires) [^\n]{1,200}, but you have\b", "fail", 3.0),
    # a test runner's word that a test failed (Octave's ``!!!!! test failed``); not a test's name (``test_failed``)
    Prior(r"(^|[^\w-])(tests?|assertions?) failed\b", "fail", 3.0),
    Prior(_FAULT_WORDS, "fail", 2.0),
    # the same under a non-English locale (see _locales): gcc's ``Fehler:``, ``erreur :``, ``エラー:``, a
    # program's ``cp: impossible d'évaluer ...``, the C library's ``Keine Berechtigung``
    Prior(LOCALIZED_LABEL, "fail", 3.0, caseless=False),
    Prior(rf"^{_PROGRAM}.*{LOCALIZED_PROBLEM}", "fail", 3.0, caseless=False),
    Prior(LOCALIZED_FAILURE, "fail", 2.5, caseless=False),
    # an assertion, and the got/want of a Go test (``Total() = 1004, want 1005``, ``got 3, want 4``)
    Prior(
        r"\bassert(ion|ionerror)?\b|\bexpected\b.*\b(got|found|but|received|actual)\b|, want\b|\bgot\b.*\bwant\b",
        "fail",
        2.0,
    ),
    Prior(_JSON_ERROR_FIELD, "fail", 3.0),
    # HTTP 5xx: the status after a quoted request line (``"GET /x HTTP/1.1" 500``), not any number after
    # a quote (a response time after the user agent: ``"curl/7.88.1" 568``), or after an unquoted method
    # and path (a client's ``150 GET /export/ledger?month=3 500 141 bytes``; the path may be read past as a
    # name), or a labelled status, or a status with its reason (``curl -i``'s ``HTTP/1.1 502 Bad Gateway``), or a
    # status first before its URL (``curl -w '%{http_code} %{url}'``); the URL's ``//...`` and ``HTTP/1.1`` are
    # read as names and left out before a line is weighed
    Prior(
        r'"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT|TRACE|PROPFIND) [^"]*" 5[0-9][0-9]\b'
        r"|(?-i:\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) +(/[^ \t\"\n]*)? +5[0-9][0-9])([ \t]|$)"
        r"|\b(status|code)[ :=]+5[0-9][0-9]\b",
        "fail",
        3.0,
    ),
    Prior(
        r"\b5[0-9][0-9] (Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out|Insufficient Storage"
        r"|Loop Detected)\b",
        "fail",
        3.0,
        caseless=False,
    ),
    # (a prior of its own: joined to the one above by ``|``, Hyperscan missed other priors' lines of a testdox run)
    Prior(r"^5[0-9][0-9][ \t]+https?:", "fail", 3.0, caseless=False),
    # weaker words and warnings
    Prior(r"\b(errors?|fail|failures|exceptions?|abort|panic|crash(ed|es)?|broken|missing)\b", "word", 1.2),
    Prior(r"\b(warn|warning|warnings|deprecated|deprecation)\b", "warn", 1.0),
    Prior(LOCALIZED_WARNING, "warn", 1.0, caseless=False),
    # outcome summaries (good or bad)
    Prior(_COUNTED_OUTCOMES, "summary", 2.5),
    Prior(_OUTCOME_TALLIES, "summary", 2.0),
    Prior(_RUNNER_VERDICTS, "summary", 2.5),
    Prior(_TOOL_VERDICTS, "summary", 2.0),
    # a count of errors with a word between (``found 1 fatal error``, ``due to 10 previous errors``), and in
    # another language (see _locales)
    Prior(rf"{_COUNT} {_QUALIFIED_FAILURES}", "summary", 2.5),
    Prior(LOCALIZED_ERRORS, "summary", 2.5, caseless=False),
    # a tally of three counts or more, in any language (poetry's ``19 installs, 0 updates, 0 removals``, apt's
    # ``0 upgraded, 16 newly installed, 0 to remove`` and its translations)
    Prior(_TALLY, "summary", 2.0),
    # a shell's own diagnostic, after the script and line (bash's ``deploy.sh: line 74: syntax error near unexpected
    # token `fi'``, ``line 12: RETENTION_DAYS: unbound variable``; dash's ``x.sh: 5: NAME: parameter not set``;
    # the script's path may be masked as a name before the line is read)
    Prior(
        r"^[^\s:\"'{}\[\],]*[ \t]*: (line )?[0-9]+: ([^\n]*: )?(syntax error|unbound variable|parameter not set|"
        r"bad substitution|ambiguous redirect|integer expression expected|too many arguments|unary operator expected|"
        r"binary operator expected|readonly variable|bad array subscript|division by 0|Bad substitution|"
        r"Illegal number)",
        "fail",
        3.0,
        caseless=False,
    ),
    # a step's failed verdict after a leader of dots (pre-commit's ``ruff check..........Failed``)
    Prior(r"\.{4,}[ \t]*(\([^()\n]{0,40}\))?(Failed|FAILED)[ \t\r]*$", "fail", 3.0, caseless=False),
    # structure
    # a chained exception's cause (Java's ``Caused by: java.io.IOException``, anyhow's ``Caused by:``), not a
    # wrapped sentence going on with "caused by ..." (``gcc --help``'s option texts)
    Prior(r"^[ \t]*Caused by\b", "fail", 3.0, caseless=False),
    Prior(_LOCATION_PREFIX, "frame", 0.5),
)

#: Healthy zero counts (``failed=0``, ``ERROR SUMMARY: 0``, ``0 errors``, ``no failures``), the
#: accounting of errors (``error budget``, ``error rate``) and a level given as an option's value
#: (``--min-level ERROR``): removed from a line before classifying it.
#: Faults a run counts or labels, healthy when none happened (``0 timeouts``, ``unreachable=0``).
_COUNTED_FAULTS = (
    r"rejected|aborted|mismatch(ed|es)?|timeouts?|invalid|conflicts?|violations?|crash(ed|es)?|unreachable|denied"
    r"|refused|corrupt(ed)?|unexpected|severe"
)
HEALTHY = re.compile(
    r"(?i)\b0 (\w+ )?(failed|errors?|errored|failures?|problems?|issues?|bugs?|fail|warnings?|vulnerabilities|incorrect"
    rf"|{_COUNTED_FAULTS})\b"
    rf"|\b(failed|failures?|errors?|fail|failing|problems|warnings?|broken|errored|{_COUNTED_FAULTS})"
    r"(( summary| count| total| [a-z]+)?\"?\s*[=:]\s*0\b(?!\.)"
    # an empty collection or nothing after the label (Spark's ``failed: HashSet()``, ``"errors": []``)
    r"|\"?[ \t]*[:=][ \t]*(\[\]|\{\}|\(\)|[A-Za-z]*(Set|List|Map|Seq)\(\)|None|null|nil)(?=[ \t]*([,;)\]}]|$))"
    # a zero after what it counts (``(retry 0, errors 0)``, ``failed jobs 0``)
    r"|( [a-z]+)? 0(?![.,:]?[0-9])\b)"
    r"|(?-i:\b(error|failure) (budgets?|rates?|ratios?|counts?|handling|handlers?|logs?|reports?|summary|"
    r"pages?|tracking|thresholds?|metrics?|bars?|codes)\b)"
    # a code's name, not a status (``error code E1093 (card_declined)``; ``error code 1``, ``error code: 500`` stay)
    r"|(?-i:\berror code(?![ \t]*[:=]?[ \t]*[0-9])\b)"
    r"|\bno (errors?|failures?|issues?|problems?|bugs?)( found)?\b|\b(fail|failed|failures|errors?|cancelled) 0\s*$"
    r"|\bwithout (errors?|failures?)\b"
    # failures a runner was told to expect (ERT's ``5 expected failures``, unittest's ``OK (expected failures=5)``)
    r"|\b([0-9][0-9,]* )?expected (failures?|errors?)( ?= ?[0-9]+)?\b"
    rf"|(?-i:\b0 (\S+ )?{LOCALIZED_ERROR_NOUN})"
    # failures a run is handling (``30 failed orders to retry``, ``retried 30 failed orders``, ``20 errors queued
    # for retry``, ``240 failed orders, all matched to a refund``): bookkeeping, not a failure of the run
    # a retry that worked (``charge succeeded after 3 failed attempts``)
    r"|\b(succeeded|passed|recovered|connected|completed|worked|ok) after [0-9][0-9,]* (failed|errors?|failures?)"
    r"( [a-z]+)?\b"
    # a worker taking failed items to handle (``loaded 240 failed deliveries``, ``replaying 480 failed jobs``,
    # an ETL's ``read 60000 failed payments``,
    # ``240 failed deliveries queued``, ``150 failed jobs recorded``)
    r"|\b(retried|requeued|re-queued|loaded|fetched|claimed|dequeued|read|parsed|received|ingested|imported|"
    r"exported|wrote|copied|[a-z]{3,}ing) [0-9][0-9,]* "
    r"(failed|errors?|failures?)\b"
    r"|\b[0-9][0-9,]* (failed|errors?|failures?)( [a-z]+)?,? ([0-9][0-9,]* )?(to retry|queued|for retry|to requeue|"
    r"requeued|retried|rescheduled|resubmitted|replayed|redelivered|all (matched|resolved|reconciled|retried)|recorded|"
    r"listed|exported|archived|stored|saved|written|loaded|collected|imported|logged)\b"
    # ... and the same said label first (``failed payments: 67 (all queued for retry)``, ``failed jobs: 4 (all
    # retried)``)
    r"|\bfailed( [a-z]+){1,2}[ \t]*[:=][ \t]*[0-9][0-9,]* \(all (in the retry queue|queued|to retry|for retry|"
    r"requeued|retried|rescheduled|resubmitted|replayed|redelivered|matched|resolved|reconciled|recorded|logged)\b"
    # failed items waiting for what the run will do with them (``1200 failed payment retries to schedule``)
    r"|\b[0-9][0-9,]* failed( [a-z]+){1,2} to [a-z]{3,}\b"
    # a level chosen on a command line (``--min-level ERROR``, ``--log-level=error``): configuration
    r"|(?<![\w-])--[a-z][\w-]*[= ](error|err|fatal|critical|crit)\b"
)
#: Every match of HEALTHY holds one of these (casefolded): a line without any is left as it is, unread.
HEALTHY_WORDS = (
    "fail",
    "error",
    "problem",
    "issue",
    "bug",
    "warning",
    "vulnerabilit",
    "incorrect",
    "rejected",
    "broken",
    "cancelled",
    "aborted",
    "mismatch",
    "timeout",
    "invalid",
    "conflict",
    "violation",
    "crash",
    "unreachable",
    "denied",
    "refused",
    "corrupt",
    "severe",
    "unexpected",
    *LOCALIZED_WORDS,
)


#: ... and a zero before a word boundary, ``no ``, ``without ``, a lower-case ``error ``/``failure ``, ``--``,
#: ``retr``, ``queue``, ``resched``, ``resubmit``, ``replay``, ``redeliver``, an empty ``()``, ``[]`` or ``{}``,
#: ``none``, ``null``, ``nil``, ``all ``, ``loaded ``, ``fetched ``, ``claimed ``, `` after ``, ``expected `` or
#: ``failed `` with `` to ``.
_ZERO = re.compile(r"0\b")


def without_healthy(text: str) -> str:
    """``text`` with its healthy zero counts and accounting of errors (HEALTHY) blanked out.

    HEALTHY is tried only on lines that hold what every match of it holds (checked by a test):
    it starts at a word boundary, which Python's ``re`` tries at every character (about 50 µs on
    a 130-character log line, against about 2 µs for these checks)."""
    folded = text.casefold()
    if not any(word in folded for word in HEALTHY_WORDS):
        return text
    if (
        _ZERO.search(text) is None
        and "no " not in folded
        and "without " not in folded
        and "error " not in text
        and "failure " not in text
        and "--" not in text
        and "retr" not in folded
        and "queue" not in folded
        and "resched" not in folded
        and "resubmit" not in folded
        and "replay" not in folded
        and "redeliver" not in folded
        and "()" not in text
        and "[]" not in text
        and "{}" not in text
        and "none" not in folded
        and "null" not in folded
        and "nil" not in folded
        and "loaded " not in folded
        and "fetched " not in folded
        and "claimed " not in folded
        and "all " not in folded
        and " after " not in folded
        and "expected " not in folded
        and ("failed " not in folded or " to " not in folded)
    ):
        return text
    return HEALTHY.sub(" ", text)


#: A count of failures in a summary (``found 2 errors in 1 files``): once healthy zeros are removed, the
#: summary names failures, as ``2399 ok, 1 failed`` does.
FAILURE_COUNT = re.compile(
    rf"(?i)(?<![\w:]){_NUM} (errors?|failures?)\b|(?<![\w:]){_NUM} {_QUALIFIED_FAILURES}"
    rf"|(?<![\w:]){_NUM} (incorrect|rejected)\b|(?<![\w:]){_NUM} bugs? (found|detected|reported)\b|" + LOCALIZED_ERRORS
)

#: A test runner's verdict that every test passed (a closing line; see ``_rank``). Tests log
#: errors on purpose; a tool's own success line (``Successfully installed``) excuses nothing.
CLEAN_VERDICT = re.compile(
    r"(?i)\b[0-9][0-9,]* (passed|passing|succeeded)\b|\btests? passed\b|\bAll tests successful\b"
    rf"|\b[0-9][0-9,]* {_CHECKED_UNITS} passed\b"
    r"|\bBUILD (SUCCESS(FUL)?|SUCCEEDED)\b|\btest result: ok\b|^OK( \(|$)"
    r"|^\S+ +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0\b"  # a host's row of Ansible's PLAY RECAP
    # the last package's verdict of ``go test ./...``, as a crate's ``test result: ok`` is cargo's: a package
    # that failed before it said ``FAIL<tab>pkg`` (a failed verdict, which keeps its failures)
    rf"|(?-i:{_GO_PACKAGE_OK})"
    rf"|(?-i:{_GO_JSON_PACKAGE.format('pass')})"
)
#: A step's name, a leader of dots and its pass verdict (pre-commit's ``error codes have a retry rule.....Passed``,
#: ``(no files to check)Skipped``): the name's words say nothing of an outcome.
PASSED_AFTER_LEADER = re.compile(
    r"\.{4,}[ \t]*(\([^()\n]{0,40}\))?(Passed|PASSED|passed|OK|ok|Skipped|SKIPPED|skipped)[ \t\r]*$"
)
#: How far from a line's end that leader and verdict are looked for.
LEADER_TAIL = 80


def passed_after_leader(text: str) -> re.Match[str] | None:
    """The leader and pass verdict that end ``text``, if they do (see :data:`PASSED_AFTER_LEADER`)."""
    if "...." not in text[-LEADER_TAIL:]:
        return None
    return PASSED_AFTER_LEADER.search(text, len(text) - LEADER_TAIL)


#: A runner's verdict that its run failed: the failing forms of :data:`CLEAN_VERDICT`. A clean closing verdict
#: speaks for the lines after it; a failure said before such a verdict belongs to an earlier unit (a loop over
#: suites, one command after another) and stays the run's failure.
FAILED_VERDICT = re.compile(
    r"(?i)\b[1-9][0-9,]* (failed|failing)(?=[,;.)]|[ \t]*$| in | \()"  # a count of units, not ``3 failed payments``
    rf"|\btests? failed\b|\b[1-9][0-9,]* {_CHECKED_UNITS} failed\b|\bBUILD FAIL(ED|URE)\b|\btest result: FAILED\b"
    r"|^FAILED( \(|$)|^FAIL\t"
    rf"|{_GO_JSON_PACKAGE.format('fail')}"
    r"|^\S+ +: ok=[0-9]+ +changed=[0-9]+ +unreachable=[0-9]+ +failed=[1-9]"  # Ansible's PLAY RECAP
)
#: A clean verdict on one unit of a run (a crate's ``test result: ok``, a package's ``ok  <tab>pkg``), said
#: once per unit. The last unit's also closes the run (:data:`CLEAN_VERDICT`); a unit that failed before it
#: said so (:data:`FAILED_VERDICT`).
UNIT_CLEAN_VERDICT = re.compile(rf"{CLEAN_VERDICT.pattern}|{_GO_PACKAGE_OK}")


def _python_source(prior: Prior) -> str:
    return f"(?i:{prior.pattern})" if prior.caseless else f"(?:{prior.pattern})"


def _top_groups() -> dict[int, int]:
    """Group number of each prior's top-level group -> the prior's index."""
    groups: dict[int, int] = {}
    number = 1
    for index, prior in enumerate(PRIORS):
        groups[number] = index
        number += 1 + re.compile(prior.pattern).groups
    return groups


#: One Python regex with one group per prior; a match's ``lastindex`` is the prior's top-level
#: group (it closes after any group nested in it).
_CLASSIFY_SOURCE = "|".join(f"({_python_source(p)})" for p in PRIORS)
_CLASSIFY = re.compile(_CLASSIFY_SOURCE, re.MULTILINE)
_TOP_GROUPS = _top_groups()


def _without_inner_groups(pattern: str) -> str:
    """``pattern`` with its capturing groups made non-capturing (``(`` -> ``(?:``); the same matches.

    Escapes and character classes (``[(]``) are left alone, as are groups that already
    start with ``?`` (flags, lookarounds).
    """
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            lead = 2 if pattern[i + 1 : i + 2] == "^" else 1
            if pattern[i + lead : i + lead + 1] == "]":  # a leading "]" is a member, not the end
                lead += 1
            out.append(pattern[i : i + lead])
            i += lead
            continue
        elif ch == "(" and pattern[i + 1 : i + 2] != "?":
            out.append("(?:")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


#: The same alternation in RE2 (linear time), for the lines where the two engines agree: ASCII
#: without \v or \x1c-\x1f (which Python's \s matches and RE2's does not). Elsewhere RE2's \b, \w
#: and case folding are ASCII-only and Python's are not. Its one group per prior is the only
#: capture, and it reads bytes: per match RE2 then extracts 29 spans instead of 80 and the
#: wrapper maps no offsets between str and UTF-8 (3x faster per line than on str with every group).
_CLASSIFY_RE2_SOURCE = "|".join(
    f"({_python_source(dataclasses.replace(p, pattern=_without_inner_groups(p.pattern)))})" for p in PRIORS
)
_CLASSIFY_RE2 = re2.compile(("(?m)" + _CLASSIFY_RE2_SOURCE).encode())
_NOT_LIKE_RE2 = re.compile(r"[^\x00-\x0a\x0c-\x1b\x20-\x7f]")
#: ASCII that Python's \s matches and RE2's does not.
_SPACE_ONLY_IN_PYTHON = re.compile(r"[\x0b\x1c-\x1f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_PRIOR_OF_GROUP = {number: number - 1 for number in range(1, len(PRIORS) + 1)}


def _inert(ch: str) -> bool:
    """Whether both engines read the non-ASCII ``ch`` alike: not a word character, not a space,
    without case, not a surrogate (punctuation and symbols such as ``‘`` ``’`` ``✓`` ``→``)."""
    if ch.isalnum() or ch.isspace() or "\ud800" <= ch <= "\udfff":
        return False
    return ch.lower() == ch == ch.upper()


def _re2_reads_alike(line: str) -> bool:
    """Whether RE2 (on UTF-8) answers as Python's ``re`` does on a line that is not plain ASCII."""
    return not _SPACE_ONLY_IN_PYTHON.search(line) and all(map(_inert, set(_NON_ASCII.findall(line))))


def classify(line: str) -> list[tuple[Prior, int]]:
    """The priors matching ``line`` (each once), with the offset where each matched first.

    Matches may overlap (``01 ERROR`` is both a count and a label): the search
    restarts one character after each match's start. Python's ``re`` semantics
    (RE2 gives the same answers on the lines it is used for; tested on the corpus).
    """
    out: list[tuple[Prior, int]] = []
    seen: set[int] = set()
    search: Callable[[Any, int], Any] = _CLASSIFY_RE2.search
    subject: bytes | str
    utf8 = b""  # the line's UTF-8 when RE2 reads it so (its offsets are then bytes, not characters)
    if not _NOT_LIKE_RE2.search(line):  # ASCII: byte offsets are character offsets
        subject, groups = line.encode("ascii"), _PRIOR_OF_GROUP
    elif _re2_reads_alike(line):  # e.g. a compiler's ‘quotes’
        subject = utf8 = line.encode("utf-8")
        groups = _PRIOR_OF_GROUP
    else:
        search, subject, groups = _CLASSIFY.search, line, _TOP_GROUPS
    pos = 0
    while (m := search(subject, pos)) is not None:
        index = groups[m.lastindex or 1]
        start = m.start()
        if index not in seen:
            seen.add(index)
            out.append((PRIORS[index], len(utf8[:start].decode("utf-8")) if utf8 else start))
        pos = start + 1
        while utf8 and pos < len(utf8) and 0x80 <= utf8[pos] < 0xC0:
            pos += 1  # restart at the next character, not inside this one
    return out


# ------------------------------------------------------------ the scanner


class Scanner:
    """Finds the offsets of prior matches in a buffer, in one pass.

    ``engine`` is ``"hyperscan"`` (many patterns at once, at GB/s) when the
    ``hyperscan`` package is installed, else ``"re2"`` (one alternation).
    """

    def __init__(self, engine: str, scan: Callable[[Any], list[int]]) -> None:
        self.engine = engine
        self._scan = scan

    def offsets(self, data: Any) -> list[int]:
        """End offsets (in bytes) of matches in ``data``, roughly in order, possibly repeated per line."""
        return self._scan(data)


def _sources(
    mark: bytes | None, failures_only: bool = False, line_starts: bool = True, prefixed: bool = False
) -> list[tuple[bytes, bool]]:
    """(pattern, caseless) for the scanner: every prior (or the failure priors), and the stream mark.

    ``line_starts=False`` leaves out the priors that match only at a line start; ``prefixed`` adds
    those with a line start, anchored after a source's prefix too (see :mod:`._multiplex`).
    """
    chosen = [p for p in PRIORS if (not failures_only or p.kind == "fail") and (line_starts or not p.line_start_only)]
    out = [(p.pattern.encode(), p.caseless) for p in chosen]
    if prefixed:
        out += [(after_prefix(p.pattern).encode(), p.caseless) for p in chosen if "^" in p.pattern.replace("[^", "")]
    if mark:
        out.append((b"^" + re.escape(mark), False))
    return out


def _hyperscan_scanner(mark: bytes | None, failures_only: bool, line_starts: bool, prefixed: bool) -> Scanner:
    import hyperscan

    sources = _sources(mark, failures_only, line_starts, prefixed)
    flags = []
    for _, caseless in sources:
        flag = hyperscan.HS_FLAG_MULTILINE
        if caseless:
            flag |= hyperscan.HS_FLAG_CASELESS
        flags.append(flag)
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=[source for source, _ in sources],
        ids=list(range(len(sources))),
        elements=len(sources),
        flags=flags,
    )

    per_thread = threading.local()  # a Hyperscan scratch serves one scan at a time

    def scan(data: Any) -> list[int]:
        ends: list[int] = []
        add = ends.append

        def on_match(_id: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            add(end)

        scratch = getattr(per_thread, "scratch", None)
        if scratch is None:
            scratch = per_thread.scratch = hyperscan.Scratch(db)
        db.scan(data, match_event_handler=on_match, scratch=scratch)
        return ends

    return Scanner("hyperscan", scan)


def _re2_scanner(mark: bytes | None, failures_only: bool, line_starts: bool, prefixed: bool) -> Scanner:
    sources = _sources(mark, failures_only, line_starts, prefixed)
    source = b"|".join(b"(?i:" + s + b")" if caseless else b"(?:" + s + b")" for s, caseless in sources)
    pattern = re2.compile(b"(?m)" + source)

    def scan(data: Any) -> list[int]:
        return [m.end() for m in pattern.finditer(data)]

    return Scanner("re2", scan)


@functools.lru_cache(maxsize=8)
def make_scanner(
    engine: str | None = None,
    mark: bytes | None = None,
    *,
    failures_only: bool = False,
    line_starts: bool = True,
    prefixed: bool = False,
) -> Scanner:
    """The fastest scanner available (``engine`` forces ``"hyperscan"`` or ``"re2"``).

    ``mark`` (a stream mark such as ``b"[stderr] "``) makes every line starting with it a candidate;
    ``failures_only`` scans for the failure priors alone (fewer patterns, faster); ``line_starts=False``
    leaves out the priors anchored at a line start, for text that has (almost) none, such as compact
    JSON: those cost the most to scan for (Hyperscan follows a ``^prog: .*word`` prior along the
    whole line to know where it started); ``prefixed`` also finds them after a source's prefix, in an
    output that interleaves sources (see :mod:`._multiplex`).
    """
    if engine == "re2":
        return _re2_scanner(mark, failures_only, line_starts, prefixed)
    try:
        return _hyperscan_scanner(mark, failures_only, line_starts, prefixed)
    except ImportError:
        if engine == "hyperscan":
            raise
    except Exception:  # a Hyperscan build that rejects a pattern: the same table through RE2
        if engine == "hyperscan":
            raise
        _log.warning("hyperscan could not compile the signal patterns; scanning with RE2", exc_info=True)
    return _re2_scanner(mark, failures_only, line_starts, prefixed)
