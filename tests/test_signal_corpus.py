"""The signal engine on the public corpus: real outputs of real tools (tests/corpus/).

For every output: each labelled decisive line is in the preview, within 1,000
preview tokens (the whole replacement within 1,250); a clean run is never
described as failing; Hyperscan and RE2 find the same lines.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest

from offloader import ContextOffloader, InMemoryStorage
from offloader.signal import _patterns, make_preview, read_signal
from offloader.signal._scan import scan
from offloader.tokens import TiktokenCounter

CORPUS = Path(__file__).parent / "corpus"
LABELS: dict[str, dict[str, Any]] = json.loads((CORPUS / "labels.json").read_text())
COUNTER = TiktokenCounter()
#: Worker processes for the checks that read the whole corpus with two engines.
WORKERS = max(1, min(4, os.cpu_count() or 1))
T = TypeVar("T")
R = TypeVar("R")


def output(name: str) -> bytes:
    with gzip.open(CORPUS / "outputs" / f"{name}.txt.gz") as f:
        return f.read()


def test_the_corpus_is_broad() -> None:
    tools = {label["tool"].split()[0] for label in LABELS.values()}
    assert len(LABELS) >= 40 and len(tools) >= 20
    assert sum(label["clean"] for label in LABELS.values()) >= 8
    assert all((CORPUS / "outputs" / f"{name}.txt.gz").exists() for name in LABELS)


#: Outputs whose labelled lines the preview still leaves out, each with why (docs/concepts/previews.md,
#: "Known gaps").
KNOWN_MISSED_LINES = {
    "prometheus_client_generate_latest_errors_zero_clean": "a metrics dump's rows of one family share a "
    "template: the preview shows each family's HELP and TYPE and one row, not the zero rows of /api/errors and refunds",
    "checkov_terraform_security_groups_one_open_ssh": "the offending line is one line of the failed resource's "
    '20-line source excerpt (cidr_blocks = ["0.0.0.0/0"]); the preview keeps the check, the resource and the '
    "excerpt's start, and nothing marks that line",
    "pip_licenses_error_named_packages_clean": "a vertical listing: each package's name is a line of its own "
    "between long licence texts; two of the names labelled are among the lines left out",
    "u32_callgrind_annotate_error_rate_functions_clean": "a clean profile: the labelled function is one row of "
    "callgrind_annotate's table (no prior, and an output with so few repeated lines gets no rare lines); the "
    "preview shows the totals row and the annotated source",
    "u33_file_exports_named_errors_and_failed_right_types_clean": "a clean `file` listing: the labelled line is "
    "one of many alike whose names say failed; the preview shows others of them",
    "u33_ip_s_addr_and_link_counters_errors0_interface_clean": "a clean `ip -s addr`: the labelled address line "
    "names the interface errors0, which no word boundary makes a word",
    "u34_cat_chalk_readme_then_node_test_one_failure": "the failed test's `not ok` and its expected and actual "
    "values are shown; the assertion's `1998 !== 1999`, indented in TAP's YAML block under it, is not",
    "u34_cat_pydantic_dist_info_metadata_clean": "a package's metadata: the newest version's heading is in the "
    "middle, after the README the description starts with",
    "u36_chkrootkit_prepared_root_hidden_dir_in_usr_lib": "chkrootkit's finding is a WARNING, and dozens of one-off "
    "`Searching for <rootkit>... not found` lines (each naming its rootkit, `not found` being the healthy answer) "
    "outrank it",
    "u36_ssh_audit_errors_failures_bastions_hardened_clean": "a clean audit has no verdict line; the labelled "
    "algorithm is one of hundreds of lines alike",
    "u36_sslscan_failure_named_services_tls12_13_only_clean": "a clean scan has no verdict line; the labelled "
    "protocol row is one of many alike",
    "u36_sslscan_six_services_tax_accepts_null_cipher": "a weak cipher accepted is a meaning, not a word: "
    "`Accepted  TLSv1.2  0 bits  ECDHE-ECDSA-NULL-SHA` is kept as one-off, but the service's header is not",
    "u36_testssl_ledger_endpoint_certificate_expired": "`NOT ok (expired)` is failure evidence and kept; the "
    "`Certificate Validity (UTC)   expired` row says it without a failure word",
    "u37_pipx_install_flake8_clean": "pipx's `installed package flake8 7.1.1` is no verdict the engine knows, in "
    "the middle of a verbose log",
    "u38_docker_inspect_error_jobs_clean": "pretty JSON of ten containers: a container's `Name` is a field of its "
    "record far below its state, and nothing in a clean record stands out",
    "u40_cythonize_20_modules_warnings_clean": "the last of Cython's `[N/20] Cythonizing` progress lines is the "
    "twentieth of one template: the count reaching its total is no verdict the engine knows",
    "u42_apt_install_clean_pt": "apt's Portuguese `16 pacotes novos instalados` is no verdict the engine knows; the "
    "sixteen package descriptions that say `retries failed jobs and reports errors` outrank it",
    "u45_lhci_budget_failure": "Lighthouse CI's failed budget is shown with its verdict; the `result(s) for "
    "http://localhost:8080/checkout.html` header of its page, one of five alike, is two lines above and not shown",
    "u45_playwright_json_strict_mode": "Playwright's JSON report: the failed result's message and stack are shown; "
    "the test's `title` is a field of the spec object seventeen lines up, outside the result's record",
    "u48_cargo_test_clean_failed_jobs": "a clean `cargo test` of three crates: each crate's `test result: ok` is "
    "shown, but the middle crate's `Running unittests` line is no verdict and the crates' warnings fill the room",
    "u48_ghc_clean_retry_runner": "a clean GHC build and run: `Linking build/retryd ...` in the middle is no verdict "
    "the engine knows, among many `-Wunused-imports` warnings and 240 lines of the program's output",
    "u48_gpp_map_key_template_error": "g++ template errors of 400-character lines: five header errors and their "
    "contexts fill the room; the user's `required from here` line of the sixth and make's `Error 1` line stay out",
    "u49_npm_ws_node_test_clean": "a clean `npm test --workspaces`: the labelled `ℹ pass 29` is the ninth of ten "
    "packages' summaries, alike to the others; the last package's summary block is shown",
    "u50_explain_analyze_buffers_error_events": "a clean EXPLAIN ANALYZE: `Rows Removed by Filter: 176924` is one "
    "node's line among many alike; nothing marks a large count as news",
    "u50_pg_dump_verbose_errors_schema_clean": "a clean `pg_dump -v` and its listing: `TOC Entries: 199` and the "
    "table's `dumping contents` line sit where one output ends and the next starts, alike to the lines around them",
    "u50_vacuumdb_reindexdb_failed_jobs_clean": "a clean `vacuumdb -v` and `reindexdb -v`: the labelled `INFO:` "
    "lines are two of hundreds alike",
    "u44_tai64n_go_test_errors_retry_clean": "a clean `go test -v`: each package's `ok` line is one of many alike "
    "(the package's path masked); one-off test log lines that say timeout or conflict outrank them",
    "u53_django_showmigrations_clean": "a clean `migrate` then `showmigrations`: the labelled `Applying "
    "retry_queue.0009_retryitem_owner_id... OK` is one of 50 alike; `showmigrations`' line for it is shown",
    "u56_gdb_cpp_abort_bt_full": "gdb's `bt full`: the frame that names the project's function is one plain line "
    "among hundreds of lines of locals; a very long last line takes the room",
    "u56_node_report_uncaught": "a Node.js diagnostic report: the failing frame is shown as stderr printed it, not "
    "its copy inside the report's JSON",
    "u56_py_dump_later_deadlock": "faulthandler's timeout dump of 20 threads: the deadlocked threads' `File ... line N "
    "in f` frames come first, alike to the other threads'; the last threads' stacks are shown",
    "u56_rust_thread_panic_full": "Rust's full backtrace: the project's frame `at .../src/rates.rs:12:17` is one of 70 "
    "frame lines; the panic's header and message, which name the same place, are shown",
    "u57_alembic_autogenerate_check_clean": "a clean `alembic upgrade head` then `check`: the labelled `Running "
    "upgrade` line is one of 49 alike",
    "u57_alembic_upgrade_index_fails": "the `Running upgrade ... index refunds by reason code` line that names the "
    "failing revision is four lines above the chained traceback, whose exceptions and the migration's frame are shown",
    "u57_sequelize_migrate_status_clean": "a clean `sequelize-cli db:migrate` then `db:migrate:status`: the last "
    "`migrated` line is one of 44 alike, with no summary after it; the status rows fill the tail",
    "u59_next_build_clean_failed_orders": "a clean `next build`: the labelled route is one of 147 alike rows of its "
    "route table",
    "u60_concurrently_group_tests_clean": "a clean `concurrently --group` of four suites: the third suite's `exited "
    "with code 0` is one of four alike; the last one and the suites' summaries are shown",
    "u61_pytest_junit_oneline_fail": "a one-line JUnit XML report read back with `cat`: the failing testcase's name "
    "ends its 31 KB first line, which the head shows from its start; the failure's message and traceback, on the "
    "lines after it, are shown",
    "u63_arm_size_objdump_clean": "a clean `size -t` and `objdump -h` listing: the firmware image's `file format "
    "elf32-littlearm` header is one of 27 alike, 35 lines before the end; the totals row and the last sections show",
    "u62_pnpm_build_test_clean": "a clean `pnpm -r run build` then `test`: the last package's `build: Done` is one of "
    "16 alike in the middle of the run; the tests' summaries and the tail are shown",
    "u65_mosquitto_acl_denied": "the denial's `Publish 1 failed: Not authorized` and the broker's `Denied PUBLISH` "
    "are shown; the client's `received PUBACK (Mid: 1, RC:135)` is one of two hundred alike that say `RC:0`: "
    "a value that differs in one row of a template is not read",
    "u67_pdflatex_undefined_control_sequence": "TeX's `! Undefined control sequence.` and its `l.25` line are "
    "shown; which chapter was being read is the `(./chapters/06_failure_modes.tex` that opened it 23 lines above, "
    "over overfull-box warnings: TeX's nesting of open files is not followed",
    "u68_mariadb_admin_status_clean": "a clean `mariadb-admin status processlist variables`, 600 KB of wide rows: "
    "the one-off status line right under the head is not found, as one-off lines are only looked for in outputs "
    "of up to 256 KB (see the speed notes), and the head's share ends above it",
    "u68_mariadb_dump_ops_clean": "a clean 500 KB `mariadb-dump`: the labelled `-- Dumping data for table` comment "
    "is a one-off line in the middle, and one-off lines are only looked for in outputs of up to 256 KB",
    "u68_sqlite_schema_dump_integrity_clean": "a clean `.schema`, `PRAGMA integrity_check` and `.dump` of 300 KB: "
    "the one-off `integrity_check: ok` line is not found past 256 KB, and the head's share ends above it",
    "u70_go_test_bench_benchmem_clean": "a clean `go test -bench` over 44 packages: the labelled package's benchmark "
    "rows and `ok` line are alike the other packages'; the head and the tail are shown",
    "u70_go_test_v_clean_failed_retries": "a clean `go test -v` over 44 packages: a middle package's `ok` line and "
    "one `--- PASS` line are rows alike (more units than the 30 whose clean verdicts rank above one-off lines)",
    "u70_go_test_timeout_goroutine_dump": "a test timed out: the panic, its goroutine dump's first frames, the "
    "project's blocked frame `retryqueue.TestRetryQueueDrainsOnShutdown(0x0)` and the `FAIL` lines are shown; its "
    "file and line, the dump's 28th line, is past the block shown under the panic",
    "u70_gofmt_l_d_merge_leftover": "`gofmt -l -d` where about 40 files differ only in their imports' order: the "
    "three files reindented by hand show in the `-l` listing and the syntax error is kept, but their `diff X.orig X` "
    "headers are three of forty alike",
    "u72_build_clean_warnings": "a clean `cargo build` of 18 crates: the labelled crate's `(lib) generated N "
    "warnings` line is one of 18 alike among 280 warnings",
    "u72_test_workspace_clean": "a clean `cargo test --workspace`: every crate's `test result: ok` is shown, but not "
    "the `Running unittests` header naming the crate of the labelled one (as with the clean `cargo test` above)",
    "u73_webhooks_async_timeout_json_diff": "pytest -vv: the first failure's `E` block is shown from its "
    "assertion, the second failure's traceback and the end of the summary's 140-line copy of the dict diff (its "
    "`- 'status': 'retry_scheduled'` and `+ 'status': 'failed'`); the summary's `FAILED ...` line that starts "
    "the copy, and the same diff line inside the `E` block, are left out for room",
    "u75_ctest_discovered_param_one_currency": "GoogleTest's `path:84: Failure` is a one-off line and its "
    "`Expected equality of these values:` block, with the `Which is: 12517` values, has no word the engine reads; "
    "the `[  FAILED  ]` lines and ctest's summary are shown",
    "u82_npm_audit_json_high": "`npm audit --json`: the one high advisory's `title` is a field of one record among "
    '253 lines of records alike, sorted by name; its metadata\'s `"high": 1` is shown',
    "u82_pip_audit_json_pyyaml": "`pip-audit -f json` through `json.tool`: the verdict on stderr and the "
    "vulnerable record's `description` are shown; its `id` and `version` fields a few lines above are not, the "
    "room going to the tail's records of packages without vulnerabilities",
    "u82_npm_outdated_clean": "a clean `npm outdated`: the labelled `minimist` row is one of 94 alike",
    "u86_nim_unittest_clean_failed_payments": "a clean Nim `unittest` run with no summary line: the labelled `[OK]` "
    "row, the first test of the first suite, is one of 180 alike just past the head's share; the last suites show",
    "u83_pre_commit_git_commit_clean": "a clean `git commit` through 13 pre-commit hooks: each hook's `Passed` or "
    "`Skipped` line ranks as a unit's verdict, but the room goes first to the summaries, the commit's report and "
    "the pytest hook's tail; the eleventh hook's line, alike to the others, is left out",
    "u87_hugo_partial_mul_error": "Hugo prints its nested template error on one 500-byte line; the line is cut to "
    "`max_line_chars` (400) around what it matches, and the inner partial's `partials/retry-badge.html:4:53` in its "
    "middle is left out (its `error calling mul` is shown)",
    "u90_dpkg_buildpackage_source_binary_clean": "a clean `dpkg-buildpackage`: the first of 14 alike `dpkg-source: "
    "info: applying ...patch` lines; the last one and the unapplying in the tail are shown",
    "u90_dpkg_deb_info_contents": "`dpkg-deb --info` and `--contents` of 24 packages, blocks of one shape: the middle "
    "package's stanza and another's file listing are rows alike; the first stanzas and the tail are shown",
    "u91_jq_retry_queue_clean": "a clean `jq` over JSON logs: the labelled service is the third of a few pretty "
    "objects above 300 TSV rows alike; the first object and the last rows are shown",
    "u91_logrotate_rotate_clean": "a clean `logrotate -d -v` over 20 stanzas: the third stanza's `renaming` line is "
    "one of 1,566 alike; the start and the last stanza are shown",
    "u91_zgrep_rotated_java_trace": "`zgrep -n` puts `app.log.5.gz:433:` before every line, so a Java frame is not "
    "read as the indented frame it is: the exception, the `Caused by:` and one frame are shown, not the project's "
    "first frame `SettlementWriter.java:217` under the exception",
    "u92_mono_unhandled_inner_exception": "Mono's unhandled exception with an inner one: the headers, the inner "
    "exception's frames and `Main`'s frame are shown; the outer `Settle` frame after `--- End of inner exception "
    "stack trace ---`, one project frame among the runtime's, is not",
    "u94_commitlint_bad_message": "commitlint's `✖` rule lines and verdict are shown; the bad commit's subject, the "
    "first line of its `--- input ---` block three lines above, is not (commit subjects that say failed fill the "
    "room)",
    "u94_commitlint_clean_one_warning": "commitlint over 160 commits prints a verdict per commit; the one with a "
    "warning, `found 0 problems, 1 warnings`, differs from the others only in a number (a value that differs in "
    "one row of a template is not read)",
    "u95_nightly_clean": "a clean nightly of 14 PHP jobs: each job's `done:` summary is shown, but one job's "
    "`[ledger-close] month 2026-01 closed`, a one-off line just above its `done:`, is left out for room",
    "u95_phpcs_psr12_clean": "a clean `phpcs -v`: the labelled `Processing ExceptionReportHandler.php` is one of 131 "
    "alike, with no summary after them; the head and the tail are shown",
    "u97_amtool_routes_test_mismatch": "amtool's `WARNING: Expected receivers did not match resolved receivers.` is "
    "shown; the alert's `== ... -> exceptions-etl-pager` line and the receiver it resolved to, three lines above "
    "over one of 72 alike `Warning: --config.file ...` lines, are not (a warning is no failure, so no section "
    "header is looked for)",
    "u97_check_config_envs_clean": "a clean `promtool check config` over ten configs: the last config's second "
    "`SUCCESS:` line is one of twenty alike, cut off with the room spent; the rule files' lines fill the tail",
    "u98_latexmk_biber_clean": "a clean `latexmk` with biber: biber's `INFO - Found 40 citekeys in bib section 0`, a "
    "one-off line in the middle of a 6,500-line log past 256 KB, has no word the engine reads; the first pass's "
    "`Citation ... undefined` warnings, normal before biber has run, take the room",
    "u98_pdflatex_missing_end_itemize": "TeX's error, its `l.35` line and the end are shown; TeX's closing `(\\end "
    "occurred inside a group at level 1)`, three lines above the tail's share, has no word the engine reads and "
    "mktexpk's one-off font-building lines above it take the room",
    "u99_autoreconf_obsolete_clean": "a clean `autoreconf -fiv -Wall` then `./configure`: autoreconf's last line, "
    "`autoreconf: Leaving directory '.'`, is no verdict the engine knows; the obsolete-macro warnings and the "
    "configure checks fill the room",
    "u99_make_v1_clean_failed_payments": "libtool's link line is 1,053 bytes: it is shown cut to `max_line_chars` "
    "(400), and the labelled `-o .libs/libfailedpay.so.3.0.1` near its end is left out",
    "u100_sbcl_build_full_warning": "SBCL's `; caught WARNING:` and its message are shown; the `; in: DEFUN "
    "RETRY-QUEUE-BACKOFF-MS` line that names the function, five lines above over the quoted form, is not",
    "u100_sbcl_unhandled_retry_exhausted": "SBCL's unhandled condition, its message and the `(ERROR ...)` frame are "
    "shown; the project's frame under it, `(SETTLE-ENTRY 913 4250)`, is one of twenty numbered frames and the "
    "start-up frames at the end take the room",
    "u102_cpio_out_in_clean": "a clean `cpio -o` then `cpio -i`: the first run's `3093 blocks`, between two "
    "listings of 3,000 lines each, has no word the engine reads; the second run's count ends the output and is shown",
    "u102_restic_backup_ls_clean": "a clean `restic backup` then `restic ls -l`: `snapshot 00000000 saved`, seven "
    "lines past the head's share, is no verdict the engine knows, above a 4,900-line listing",
    "u103_dbt_build_not_null_fails_skips": "the failing test, its `Got 12 results` and the summary are shown; the "
    "skipped model's `SKIP relation ...` line is one of five alike just above the tail's `PASS` lines",
    "u103_dbt_compile_ls_clean": "a clean `dbt ls`: the last model is one of 80 alike rows, and nothing marks where "
    "the models end and the tests begin",
    "u104_octave_loop_undefined_function": "Octave's error, its `error: called from` line and frame are shown; the "
    "loop's `octave exited 1 for scripts/close_05_chargebacks.m` under them is no failure word the engine reads, and "
    "the other scripts' lines and the tail take the room",
    "u104_octave_test_verbose_failing_assert": "Octave's `!!!!! test failed` and the assert above it are shown; the "
    "file's `>>>>> .../retry_queue_weekly.m` two lines above (Octave's `>>>>>` marks no section the engine knows) "
    "and the `ASSERT errors for:` line under it are not",
    "u106_cppcheck_xml_out_of_bounds": 'cppcheck\'s XML report: the one `severity="error"` element is one of '
    "hundreds of `<error id=...>` elements alike, and its `<location>` line with it",
    "u106_run_clang_tidy_null_dereference_path": "run-clang-tidy exits 0 and the analyzer's null dereference is a "
    "`warning:` among 600 readability warnings: its path notes are shown, its own line is left out for room",
    "u109_gpg_verify_bad_signature": "gpg's `BAD signature` is shown; `gpg: assuming signed data in '...'`, three "
    "lines above over two lines alike to the 240 good signatures' lines, is not",
    "u109_sha256sum_ignore_missing_clean": "a clean `sha256sum -c --ignore-missing`: the labelled `OK` row is one of "
    "668 alike",
    "u110_wasm_interp_trace_unreachable": "wasm-interp's trap and its result line are shown; the `>>> running export "
    '"drain_dead_letters":` banner five lines above, one of many alike, is not',
    "u110_wasm_objdump_failed_payments_clean": "a clean `wasm-objdump -x -d` of 5,300 lines: the `Code Disassembly:` "
    "heading in the middle has no word the engine reads; the data section's one-off strings take the room",
    "u112_mkimage_fit_clean": "a clean `mkimage -l`: `Default Configuration: '...'` is one line in the middle of a "
    "591-line listing, among image headers alike",
    "u111_flatc_python_ts_clean": "a clean `ls -R` of generated code: the labelled `gen/python/payments/billing:` "
    "heading is fifteen lines above the tail's share, a folder heading among many alike",
    "u111_thrift_gen_ls_clean": "a clean 1,137-line `ls -R` of generated code: the fourth service's folder heading "
    "and file are rows of a listing with no word the engine reads; the first services and the last are shown",
    "u113_extract_package_clean": "a clean `frictionless extract`: the labelled resource is a middle row of a "
    "32-row list; its head and last row are shown",
    "u113_make_validate_invalid_schema_file": "frictionless draws its error as a row of a table (`│ None │ None  │ "
    "field-error │ Field is not valid: ... │`), read as a stored value; the dataset's `INVALID` row and make's "
    "`Error 1` are shown",
    "u113_validate_json_extra_and_missing_cell": "`frictionless validate --json`: the failing task's `name` and both "
    'errors\' `message` are shown; its `"place"` field a line under the name is not',
    "u113_validate_yaml_enum_required": "as above in YAML: the task's `name` and the messages are shown, its `place:` "
    "field is not",
    "u116_ghc_make_keep_going_type_error": "GHC's `error:` header, `Couldn't match type` and its expected and "
    "actual lines are shown; the block's `In an equation for ‘retryQueueLabels’` further down is left out for room",
    "u116_ghc_make_warnings_then_settle_clean": "a clean build then run: `Linking bin/settle`, in the middle after 120 "
    "warnings and before 600 payment lines, is no verdict the engine knows",
    "u115_pipdeptree_clean": "a clean `pipdeptree` then `pipdeptree --reverse`: the reverse tree's root "
    "`retry-queue==2.1.0` is a bare name and version among tree lines alike",
    "u118_jcmd_thread_print_clean": 'a clean `jcmd Thread.print` of 60 threads: the labelled `"retry-worker-0"` '
    "thread's header is one of 40 worker threads alike, each over a stack alike; the first threads and the last show",
    "u120_build_mkindex_error": "the cause, `warning: error while sourcing error_codes.tcl: wrong # args`, is a "
    "warning that words an error (kept out of the outcome, ranked as a word); the proc report's 36 one-off "
    "`::paydesk::<area>::failed  record` rows, alike but for the area's name, outrank it",
    "u122_reconcile_clean": "a clean reconciliation: the labelled `partition webhook_replay_2023: matched` is one "
    "of 40 INFO lines alike in the middle; the warnings and the summary are shown",
    "u123_curl_clean_warnings": "a clean `curl -i` loop: the coupons endpoint's `Warning: 299` header is alike the "
    "tax endpoint's one shown, and the last body's first line is above the tail's share",
    "u123_socat_clean": "a clean socat TLS relay: the `SSL connection using ...` notice is the sixth line of a "
    "block repeated per connection; the first lines and socat's exit are shown",
    "u123_ss_nc_clean": "a clean `ss -tlnp` then `nc -zv` probe: the last listening row and the last probe's "
    "`succeeded!` are rows alike in the middle, above 36 health documents that fill the tail",
    "u124_go_flag_help_clean": "a clean driver run of a Go tool: the labelled call's summary line is one of 80 alike",
    "u125_anacron_clean": "anacron's closing `Normal exit (30 jobs run)` sits in the middle, before the jobs' logs, "
    "and is no verdict the engine knows; a `Job ... terminated` line is one of 30 alike",
    "u125_at_queue_clean": "a clean `atq` listing: the labelled row is one of 24 alike but for its time",
    "u125_flock_wait_clean": "run-parts' `etc/cron.hourly/13-failed-payments:` header is a bare path line among "
    "others alike; the jobs' summaries are shown",
    "u125_runparts_report_clean": "a clean `run-parts --report`: the labelled job's summary is one of 31 alike above "
    "the digest block that fills the tail",
    "u126_gc_aggressive_clean": "a clean `git gc --aggressive` between two `git count-objects -v`: the second block's "
    "`count:` and `in-pack:` rows have the first block's keys, and the `for-each-ref` listing's names take the room",
    "u127_importtime_clean": "a clean `python -X importtime` run: `plugin ... registered` is one line in the middle of "
    "660 alike; the head and the summary are shown",
    "u128_ignore_errors_check_exit0": "make -i's `make[2]: [Makefile:24: check] Error 1 (ignored)` is an error the "
    "tool says it ignored, no failure evidence; the failed check's `not ok 14` and its count are shown, make's line "
    "is left out for room",
    "u128_j4_clean_selftest": "a clean `make -j4 selftest`: `LINK    ledgerd (16 libraries)` is one of the build's "
    "echo lines in the middle; the head and the self-test's tail are shown",
    "u132_pg_prove_runtests": "pg_prove's failed test is shown with its `not ok 4` and `# Looks like you failed 1 "
    "tests of 4`; the subtest's indented `#         have: rejected` under `# Failed test 4` is not",
    "u134_client_invalid_argument_log": "a gRPC client's 39 per-call `-> FAILED code=...` result rows, each about a "
    "payment, rank with its closing traceback's `_InactiveRpcError`; the error's `status =` and `details =` lines "
    "under it are left out for room, and a `cat server.log` fills the tail",
    "u134_client_unavailable": "the `_InactiveRpcError` and its `status = StatusCode.UNAVAILABLE` are shown; the "
    "project's frame `client.py, line 83, in reconcile_ledger` in the traceback's middle is not",
    "u134_make_protoc_clean": "a clean `make` of protos: the labelled `PROTOC   .../webhooks.proto` is one of 32 "
    "progress lines alike among unused-import warnings",
    "u129_nbconvert_markdown_clean": "a clean `jupyter nbconvert --to markdown` of six notebooks: the labelled "
    "`Converting notebook notebooks/timeouts.ipynb` is one of six alike, among the notebooks' payment tables",
    "u129_nbval_lax_clean": "a clean `pytest --nbval-lax`: the labelled `Cell 6 PASSED` is one of 228 alike; the "
    "summary is shown",
    "u129_papermill_loop_keyerror": "the notebook's `KeyError: 'GBP'` and papermill's error are shown; the loop's "
    "`=== refunds` marker, 140 lines above the error over the notebook's output, is not",
    "u131_descriptors_unknown_attrs": "a clean Tomcat start: the labelled descriptor's `Deployment ... has finished` "
    "is one of 40 INFO lines alike; the startup verdict and the warnings are shown",
    "u131_startup_clean_warnings": "as above: one webapp's `Deployment of web application directory ... has "
    "finished` is one of 40 alike",
    "u131_web_xml_parse_error": "Tomcat's parse error and its SEVERE lines are shown; the last of six SEVERE lines, "
    "`Context [/catalog] startup failed due to previous errors`, is left out for room",
    "u130_build_all_bad_dependency": "the failed package's `configuration error: ... must be pep508`, the "
    "`ValueError` and the summary are shown; its `===== ledgerkit-dunning` banner, one of 24 alike, is not",
    "u130_release_gate_pyroma_rating": "pyroma's `Final rating: 4/10` for one package is a line alike to the 25 "
    "packages' `9/10` and `10/10`: a low value is no word the engine reads; the gate's `FAILED for ledgerkit-timeouts` "
    "is shown",
    "u130_twine_wheel_contents_clean": "a clean `twine check`: the labelled `PASSED with warnings` is one of 14 alike",
    "ant_verbose_javac_cannot_find_symbol": "javac's error, the source line and its caret are shown; the `symbol:` "
    "line under them is left out at the budget's edge: the one-off lines of javac's argument listing, ranked "
    "by line, fill the room first",
}


def _outputs(clean: bool | None, known: dict[str, str]) -> list[Any]:
    """The clean (or failed, or all) outputs' names, each known gap among them a strict ``xfail`` with its reason."""
    names = sorted(n for n, label in LABELS.items() if clean is None or label["clean"] == clean)
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=known[n])) if n in known else n for n in names]


@dataclass(frozen=True)
class Findings:
    """What the engine made of one output: its preview, the whole replacement, its reading of the run."""

    preview_tokens: int
    not_in_preview: list[str]
    preview: str  # kept only when a decisive line is missing from it (the failure message shows it)
    shown_tokens: int
    not_shown: list[str]
    failing: bool
    failure_units: list[str]


def _find(names: list[str]) -> list[tuple[str, Findings]]:
    """The findings for each output of ``names`` (run in a worker process, under the blocking detector)."""
    from tests.blocking import detect_blocking

    async def replacement(name: str, text: str) -> str:
        offloader = ContextOffloader(InMemoryStorage(), max_result_tokens=1100, preview_tokens=1000, counter=COUNTER)
        result = {"toolUseId": f"t-{name}", "status": "success", "content": [{"text": text}]}
        out = await offloader.process_tool_result("corpus", result)
        return "\n".join(block.get("text", "") for block in out["content"])

    found: list[tuple[str, Findings]] = []
    with detect_blocking():
        for name in names:
            raw = output(name)
            text = raw.decode("utf-8", "surrogateescape")
            decisive = LABELS[name]["decisive"]
            preview = make_preview(text, counter=COUNTER, preview_tokens=1000)
            missing = [line for line in decisive if line not in preview]
            shown = anyio.run(replacement, name, text)
            signal = read_signal(raw)
            failures = [repr(u) for u in signal.units if u.failure]
            found.append(
                (
                    name,
                    Findings(
                        COUNTER.count(preview),
                        missing,
                        preview if missing else "",
                        COUNTER.count(shown),
                        [line for line in decisive if line not in shown],
                        signal.failing,
                        failures,
                    ),
                )
            )
    return found


#: The tests below that read one output each: the module's findings fixture computes what they check.
_PER_OUTPUT_TESTS = (
    "test_decisive_lines_are_in_the_preview_within_budget",
    "test_the_replacement_keeps_them_within_1250_tokens",
    "test_a_clean_run_is_not_called_a_failure",
    "test_a_failed_run_shows_failure_evidence",
)


@pytest.fixture(scope="module")
def findings(request: pytest.FixtureRequest) -> dict[str, Findings]:
    """The findings for every output a collected per-output test reads, computed once, in worker processes
    (the corpus is read once, with every core; a run of a few tests reads only their outputs)."""
    names = {
        item.callspec.params["name"]
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.originalname in _PER_OUTPUT_TESTS
        and item.module is request.module
    }
    return dict(_in_worker_processes(_find, sorted(names)))


#: Reading the whole corpus takes minutes on two busy cores (the first test to ask for the findings waits for them).
_READS_THE_WHOLE_CORPUS = pytest.mark.timeout(1800)


@_READS_THE_WHOLE_CORPUS
@pytest.mark.parametrize("name", _outputs(None, KNOWN_MISSED_LINES))
def test_decisive_lines_are_in_the_preview_within_budget(name: str, findings: dict[str, Findings]) -> None:
    found = findings[name]
    assert found.preview_tokens <= 1000
    assert not found.not_in_preview, f"{name}: not in the preview: {found.not_in_preview}\n{found.preview}"


@_READS_THE_WHOLE_CORPUS
@pytest.mark.parametrize("name", _outputs(None, KNOWN_MISSED_LINES))
def test_the_replacement_keeps_them_within_1250_tokens(name: str, findings: dict[str, Findings]) -> None:
    found = findings[name]
    assert found.shown_tokens <= 1250
    assert not found.not_shown


#: Clean runs the engine still calls failing, each with why (docs/concepts/previews.md, "Known gaps").
#: Strict: the test fails once the engine gets one right, so the entry must then go.
KNOWN_FALSE_ALARMS: dict[str, str] = {
    "u93_xdev_exception_report_clean": "a report script's closing line counts the failed payments it wrote "
    "(`exception report complete: 192 rows, 12 error codes, 1920 failed payments -> exception_report.csv`), read as "
    "a count of failures as in the dash export above",
    "u107_ninja_build_run_report_clean": "a report's rows carry a `code=` column of numbers; the two rows whose code "
    "is 500 and 501 read as HTTP server errors (`code=500`)",
    "u108_xsltproc_error_codes_report_clean": "a report titled `ERROR CODE CATALOG` and closed by `error codes "
    "catalogued: 600 (retryable: 200, fatal: 400)`: the title in capitals and `fatal: 400` read as labels",
    "u118_jar_create_list_run_clean": "a settlement run's records say `status=FAILED error=E-0012 ... retry=queued` "
    "for 26 of 180 payments, in rows whose other values differ: a field's value in a record reads as the run's "
    "verdict, as a test runner's `status=FAILED` would",
    "u100_sbcl_exception_report_clean": "a report's first line counts what it read (`exception-report: 1600 failed "
    "payments, 8 error codes`): one count of failed items, as `found 2 failed deliveries` is a run's, and nothing "
    "says it is data",
    "u124_argparse_help_deprecated_clean": "argparse's help ends with an epilog that lists exit codes (`2 usage error, "
    "3 too many errors (see --max-errors)`), read as counts of errors",
    "u124_click_deprecated_clean": "an export's rows carry `error ERROR E2040_insufficient_funds` as a status column's "
    "value among rows whose other values differ, read as the run's verdict",
    "u125_cronic_warning_clean": "cronic's `Cronic detected failure or error output for the command:` over a job's "
    "DeprecationWarning lines, when only `RESULT CODE: 0` says the job succeeded",
    "u133_smtplib_digest_deprecation_clean": "smtplib's debug output echoes each message it sends (`send: "
    "b'...Subject: Digest 004: ERROR report - failed payments...'`), whose `ERROR` and `FAILED` are data",
    "u134_client_batch_clean": "a gRPC client's per-call result rows say `-> FAILED code=E_FRAUD_SUSPECTED` for "
    "payments a clean batch declined: a row's status value reads as the run's verdict",
    "u134_server_log_clean": "a server's closing `paysvc stopped: 480 calls served, 11 aborted with a status` counts "
    "calls that returned gRPC's ABORTED status; `aborted` reads as the run's crash",
    "u129_nbconvert_markdown_clean": "the notebooks' payment tables say `FAILED E-3001` in a status column, rows whose "
    "other values differ: a row's status value reads as the run's verdict",
    "u129_papermill_clean": "as above, in the cell outputs of papermill's executed notebooks (`PAY-190046 ... USD "
    "FAILED    E-6120  retries=2`)",
    "u58_spark_submit_retry_clean": "Spark logs a task's first attempt, which failed, at ERROR with its Python "
    "traceback; the retry that worked and the job's end say so only as INFO lines alike to all the others",
}


@_READS_THE_WHOLE_CORPUS
@pytest.mark.parametrize("name", _outputs(True, KNOWN_FALSE_ALARMS))
def test_a_clean_run_is_not_called_a_failure(name: str, findings: dict[str, Findings]) -> None:
    assert not findings[name].failing, findings[name].failure_units


#: Failed runs the engine still finds no failure evidence in, each with why (docs/concepts/previews.md,
#: "Known gaps"). Strict: the test fails once the engine sees the failure, so the entry must then go.
KNOWN_UNSEEN_FAILURES = {
    "u46_make_migrate_pytest_echo_exit": "a chain that goes on after a failed step: sqlite3's `Parse error near line "
    "3: no such column: refund_id` is failure evidence, but the chain's last step, pytest's `308 passed`, is a clean "
    "closing verdict, and failures logged before one are the run's own logging",
    "qpdf_check_thirty_invoices_one_broken_xref": "qpdf says `WARNING: ... file is damaged` and `operation "
    "succeeded with warnings` (exit 3, warnings), and the loop that runs it exits 0: warnings are not failures",
    "u33_df_du_lsof_rotated_billing_log_deleted_but_open_fills_logs": "a full file system is a state, not a "
    "report: df's `100%` and lsof's `(deleted)` are no failure words, and the listing commands exit 0",
    "u33_file_nightly_backups_one_tar_gz_is_html_error_page": "`file` says what a file is: one backup read as "
    "`HTML document` among `gzip compressed data` is news (kept), but no failure",
    "u36_chkrootkit_prepared_root_hidden_dir_in_usr_lib": "chkrootkit reports its finding as a WARNING, and "
    "warnings are not failures",
    "u36_sslscan_six_services_tax_accepts_null_cipher": "sslscan lists a NULL cipher as `Accepted` and exits 0: "
    "no word says it is a failure",
    "u98_lacheck_mismatched_end": "lacheck exits 0 and words every finding alike: its `<- unmatched "
    '"\\end{figure}"` is shown among 200 style hints, but `unmatched` is no failure word',
    "u98_latexmk_bibtex_missing_key": "latexmk exits 0 and lists `Latex failed to resolve 1 citation(s)` under its "
    "`Summary of warnings`: shown, but a weak `failed` alone is no failure evidence",
    "u98_latexmk_undefined_reference": "as above, for an undefined reference: `Latex failed to resolve 1 "
    "reference(s)` is shown and latexmk exits 0",
    "u104_maxima_batch_nonconformable": "maxima exits 0 and says `MULTIPLYMATRICES: attempt to multiply "
    "nonconformable matrices.` then ` -- an error. To debug this try: debugmode(true);`: shown, but no failure word "
    "the engine reads",
    "u106_run_clang_tidy_null_dereference_path": "run-clang-tidy exits 0; the analyzer's null dereference is a "
    "`warning:`, and warnings are not failures",
    "u119_aspell_pipe_misspelling": "aspell's pipe mode marks its one finding with `&` among thousands of `*` lines "
    "and exits 0; the script's `misspelled words: 1` is a labelled count of a fault, which is no failure evidence "
    "(as `timeouts: 3` is not)",
    "u119_hunspell_pipe_misspelling": "as above, with hunspell",
    "u121_dos2unix_binary_skipped": "dos2unix exits 0 after `Skipping binary file ...`: shown, but skipping is no "
    "failure word",
    "u130_wheel_audit_toplevel_tests": "check-wheel-contents words a wheel's problems as codes (`W005`, `W009`) and "
    "the loop exits 0: shown, but no failure word",
    "u76_luigi_missing_external_feed": "luigi exits 0 when an external input is missing: its `WARNING: Data for "
    "ChargebackFeed(...) does not exist (yet?)` and the summary's `This progress looks :| because there were missing "
    "external dependencies` are shown, but a warning and a face are no failure words",
}


@_READS_THE_WHOLE_CORPUS
@pytest.mark.parametrize("name", _outputs(False, KNOWN_UNSEEN_FAILURES))
def test_a_failed_run_shows_failure_evidence(name: str, findings: dict[str, Findings]) -> None:
    assert findings[name].failing


def _engines_disagree_on(names: list[str]) -> list[str]:
    """The outputs of ``names`` where Hyperscan and RE2 find different lines (run in a worker process)."""
    differ: list[str] = []
    for name in names:
        data = output(name)
        fast = [(u.lineno, u.kind) for u in read_signal(data, engine="hyperscan").units]
        slow = [(u.lineno, u.kind) for u in read_signal(data, engine="re2").units]
        if fast != slow:
            differ.append(name)
    return differ


def _in_worker_processes(check: Callable[[list[T]], list[R]], items: list[T]) -> list[R]:
    """``check`` over ``items`` split among one worker process per core: what each found, joined.

    The per-output findings and the engine-parity checks read the whole corpus; each part runs in a
    fresh interpreter (spawned, not forked from pytest's threads), so CI's cores share the work.
    """
    parts = [items[i :: 4 * WORKERS] for i in range(4 * WORKERS)]
    with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
        return [item for found in pool.map(check, parts) for item in found]


@_READS_THE_WHOLE_CORPUS
def test_hyperscan_and_re2_find_the_same_lines() -> None:
    assert _in_worker_processes(_engines_disagree_on, sorted(LABELS)) == []


def _classify_with_python_re(line: str) -> list[tuple[object, int]]:
    """classify's loop with Python's re alone: the reference RE2 is checked against."""
    out: list[tuple[object, int]] = []
    seen: set[int] = set()
    pos = 0
    while (m := _patterns._CLASSIFY.search(line, pos)) is not None:
        index = _patterns._TOP_GROUPS[m.lastindex or 1]
        if index not in seen:
            seen.add(index)
            out.append((_patterns.PRIORS[index], m.start()))
        pos = m.start() + 1
    return out


def _classified_unlike_python_re(lines: list[str]) -> list[str]:
    """The lines of ``lines`` that classify answers for otherwise than Python's re (run in a worker process)."""
    return [line for line in lines if _patterns.classify(line) != _classify_with_python_re(line)]


@_READS_THE_WHOLE_CORPUS
def test_line_classification_gives_python_re_answers_on_the_corpus() -> None:
    # every line the scanner hands to ranking (what classify is run on), and the first lines of each output;
    # each distinct line once (classify reads nothing but the line)
    lines: set[str] = set()
    for name in sorted(LABELS):
        raw = output(name)
        text = raw.decode("utf-8", "surrogateescape").splitlines()
        found = scan(raw)
        chosen = {c.lineno for c in found.candidates[:1500]} | set(range(1, min(len(text), 150) + 1))
        lines.update(text[lineno - 1] if lineno <= len(text) else "" for lineno in chosen)
    assert len(lines) > 15_000
    assert _in_worker_processes(_classified_unlike_python_re, sorted(lines)) == []


@pytest.mark.parametrize(
    "line",
    ["ℹ fail 0", "tests\x0bfailed 3", "FAIL\x1cnext", "Ошибка: error here", "ERROR: ok\tthere", "  1 failed, 2 passed"],
)
def test_lines_where_re2_and_python_re_part_are_classified_by_python_re(line: str) -> None:
    assert _patterns.classify(line) == _classify_with_python_re(line)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(a|b)c", r"(?:a|b)c"),
        (r"[(]x(y)", r"[(]x(?:y)"),  # a parenthesis in a class is a member
        (r"\(lit\)(z)", r"\(lit\)(?:z)"),  # escaped ones are literals
        (r"[]()](q)", r"[]()](?:q)"),  # a leading ] is a member, not the class's end
        (r"[^]()](q)", r"[^]()](?:q)"),
        (r"(?i:x)(?=y)(w)", r"(?i:x)(?=y)(?:w)"),  # flags and lookarounds are kept
    ],
)
def test_inner_groups_become_non_capturing_and_nothing_else_changes(pattern: str, expected: str) -> None:
    assert _patterns._without_inner_groups(pattern) == expected


def test_the_re2_alternation_captures_one_group_per_prior_and_nothing_else() -> None:
    import re

    assert re.compile(_patterns._CLASSIFY_RE2_SOURCE).groups == len(_patterns.PRIORS)


@pytest.mark.parametrize(
    "line",
    [
        "src/a.c:3:5: error: ‘balance’ undeclared (first use in this function)",  # gcc's quotes
        "✓ pass 3",  # \W{0,3} counts characters, not bytes
        "→→ FAILED ─── 2 tests, exit status 1",
        "• error: thing … failed • ERROR:",
        "‘x’ ‘y’ ‘z’ Error: ‘boom’",
    ],
)
def test_lines_with_only_punctuation_beyond_ascii_are_read_by_re2_as_python_re_reads_them(line: str) -> None:
    assert _patterns._re2_reads_alike(line)
    assert _patterns.classify(line) == _classify_with_python_re(line)


@pytest.mark.parametrize(
    "line",
    [
        "Ошибка: error here",  # letters beyond ASCII: \w and \b differ
        "ſtatus: failed",  # folds to 's' in Python's re
        "Ⅱ failed",  # a number: \w in Python
        "Ⓐ failed",  # has case
        "x\u00a0failed",  # a space in Python only
        "bad \udcff byte: error",  # a surrogate (surrogateescape)
    ],
)
def test_lines_with_letters_spaces_or_case_beyond_ascii_are_left_to_python_re(line: str) -> None:
    assert not _patterns._re2_reads_alike(line)
    assert _patterns.classify(line) == _classify_with_python_re(line)


def test_re2_and_python_re_agree_on_random_lines_of_punctuation_beyond_ascii() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    words = ["error", "failed", "FAILED", "pass", "tests", "exit status 1", "Error:", "not found", ":12: ", "0 failed"]
    pieces = st.one_of(st.sampled_from(words), st.sampled_from(list("‘’✓→─…• :=[]()\"'\t0123456789abcXYZ_-")))

    @settings(max_examples=2000, deadline=None)
    @given(st.lists(pieces, max_size=16).map("".join))
    def agree(line: str) -> None:
        assert _patterns.classify(line) == _classify_with_python_re(line)

    agree()
