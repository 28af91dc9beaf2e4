"""Held-out outputs (group ``unseen-7``): a seventh batch, made to measure the engine after six rounds of fixes.

Debuggers and sanitizers (a ``gdb -batch`` backtrace, UBSan reporting an overflow in a run that
exits 0, a ThreadSanitizer data race), a Tcl job runner logging ``errorInfo``, linters with one
error among many warnings (cfn-lint, yamllint, bandit), ``msgfmt -c`` over many catalogs, GNU
``patch --verbose`` with one rejected hunk and ``tar -xvk`` with one existing file (both large),
``mkdocs build --strict`` aborting on one broken link, ``curl --fail-with-body`` against a local
server answering 500, and clean runs (valgrind, make with ignored errors, ctest repeating a flaky
test until it passes, ``docker logs`` of a sync job that retried) whose text talks about errors.
Labels were written with each scenario, before the engine saw the output.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, busybox_image, case, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-7"

# ---------------------------------------------------------------- C: debugger and sanitizers


@case(
    "gdb_batch_segv_backtrace",
    "gdb -batch (run, bt)",
    clean=False,
    group=GROUP,
    decisive=["Program received signal SIGSEGV, Segmentation fault.", "#0  apply_discount (o=", "at settle.c:9"],
)
def _gdb(root: Path) -> bytes:
    write(
        root,
        {
            "settle.c": """
            #include <stdio.h>
            #include <stdlib.h>

            struct coupon { char code[16]; int percent; };
            struct order { int id; long cents; struct coupon *coupon; };
            static struct coupon SPRING = {"SPRING10", 10};

            long apply_discount(const struct order *o) {
                return o->cents - o->cents * o->coupon->percent / 100;
            }

            long settle(struct order *orders, int n) {
                long total = 0;
                for (int i = 0; i < n; i++) {
                    long due = apply_discount(&orders[i]);
                    printf("order %05d settled: %ld cents (coupon %s)\\n", orders[i].id, due, orders[i].coupon->code);
                    total += due;
                }
                return total;
            }

            int main(void) {
                setvbuf(stdout, NULL, _IOLBF, 0);
                int n = 3000;
                struct order *orders = calloc(n, sizeof *orders);
                for (int i = 0; i < n; i++) {
                    orders[i].id = 10000 + i;
                    orders[i].cents = 1000 + i * 7;
                    orders[i].coupon = &SPRING;
                }
                orders[1873].coupon = NULL; /* a legacy row imported without a coupon */
                printf("total: %ld\\n", settle(orders, n));
                return 0;
            }
            """
        },
    )
    sh("gcc -g -O0 -o settle settle.c", root)
    return sh(
        "gdb -q -batch -iex 'set debuginfod enabled off' -ex run -ex bt -ex 'info frame' -ex 'info all-registers' "
        "-ex 'disassemble' -ex 'info sharedlibrary' ./settle",
        root,
    )


@case(
    "ubsan_overflow_exit_zero",
    "gcc -fsanitize=undefined (run)",
    clean=False,
    group=GROUP,
    decisive=["runtime error: signed integer overflow: 2147483000 + 1404 cannot be represented in type 'int'"],
    note="the program exits 0: UBSan reports and carries on",
)
def _ubsan(root: Path) -> bytes:
    write(
        root,
        {
            "loyalty.c": """
            #include <stdio.h>

            int points_for(int balance, int purchase) { return balance + purchase * 12; }

            int main(void) {
                static int balance[4000];
                for (int i = 0; i < 4000; i++) balance[i] = i * 311;
                balance[2417] = 2147483000;
                for (int i = 0; i < 4000; i++) {
                    int p = points_for(balance[i], 100 + i % 50);
                    printf("customer %04d: %d points (tier %s)\\n", i, p, p > 1000000 ? "gold" : "silver");
                }
                printf("loyalty batch done: 4000 customers\\n");
                return 0;
            }
            """
        },
    )
    return sh("gcc -g -O0 -fsanitize=undefined -o loyalty loyalty.c && ./loyalty", root)


@case(
    "tsan_data_race_ledger",
    "gcc -fsanitize=thread (run)",
    clean=False,
    group=GROUP,
    decisive=["WARNING: ThreadSanitizer: data race", "Location is global 'ledger_total' of size 8"],
)
def _tsan(root: Path) -> bytes:
    write(
        root,
        {
            "ledger.c": """
            #include <pthread.h>
            #include <stdio.h>

            static long ledger_total; /* updated by every worker, guarded by nothing */
            static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

            struct batch { int id; int n; };

            static void *post_batch(void *arg) {
                struct batch *b = arg;
                for (int i = 0; i < b->n; i++) {
                    ledger_total += 100;
                    pthread_mutex_lock(&log_lock);
                    printf("batch %d: posted transfer %05d (100 cents)\\n", b->id, i);
                    pthread_mutex_unlock(&log_lock);
                }
                return NULL;
            }

            int main(void) {
                pthread_t threads[4];
                struct batch batches[4];
                for (int t = 0; t < 4; t++) {
                    batches[t] = (struct batch){t, 2500};
                    pthread_create(&threads[t], NULL, post_batch, &batches[t]);
                }
                for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
                printf("ledger closed: %ld cents posted\\n", ledger_total);
                return 0;
            }
            """
        },
    )
    return sh("gcc -g -O1 -fsanitize=thread -pthread -o ledger ledger.c && ./ledger", root)


# ---------------------------------------------------------------- Tcl


@case(
    "tcl_job_errorinfo",
    "tclsh",
    clean=False,
    group=GROUP,
    decisive=['can\'t read "cfg(retry_timeout)": no such element in array', "scheduler finished: 2399 ok, 1 failed"],
)
def _tcl(root: Path) -> bytes:
    write(
        root,
        {
            "scheduler.tcl": """
            fconfigure stdout -buffering line
            array set cfg {queue billing workers 8 timeout 30}
            set ok 0
            set failed 0
            proc run_job {id} {
                global cfg
                if {$id == 1207} {
                    set wait $cfg(retry_timeout)
                } else {
                    set wait $cfg(timeout)
                }
                return "job $id on queue $cfg(queue) (wait ${wait}s)"
            }
            for {set i 0} {$i < 2400} {incr i} {
                if {[catch {run_job $i} msg]} {
                    puts stderr "job $i: $::errorInfo"
                    incr failed
                } else {
                    puts "$msg: done"
                    incr ok
                }
            }
            puts "scheduler finished: $ok ok, $failed failed"
            """
        },
    )
    return sh("tclsh scheduler.tcl", root)


# ---------------------------------------------------------------- linters: cfn-lint, yamllint, bandit


@case(
    "cfn_lint_one_type_error",
    "cfn-lint",
    clean=False,
    group=GROUP,
    decisive=["E3012", "'lots' is not of type 'integer'", "templates/svc-refunds-07.yaml"],
)
def _cfn_lint(root: Path) -> bytes:
    for i in range(160):
        name = f"svc-{WORDS[i % 20]}-{i // 20:02d}"
        memory = "lots" if name == "svc-refunds-07" else str(128 * (1 + i % 8))
        write(
            root,
            {
                f"templates/{name}.yaml": f"""
                AWSTemplateFormatVersion: "2010-09-09"
                Description: {name} lambda
                Parameters:
                  Env:
                    Type: String
                  CostCenter:
                    Type: String
                  OwnerTeam:
                    Type: String
                Resources:
                  Fn:
                    Type: AWS::Lambda::Function
                    Properties:
                      FunctionName: {name}
                      Handler: index.handler
                      Runtime: python3.12
                      Role: arn:aws:iam::123456789012:role/lambda-{name}
                      Code:
                        ZipFile: "def handler(event, context): return 1"
                      MemorySize: {memory}
                      Timeout: 30
                      Environment:
                        Variables:
                          ENV: !Ref Env
                """
            },
        )
    return sh("cfn-lint templates/*.yaml", root)


@case(
    "yamllint_duplicate_key",
    "yamllint",
    clean=False,
    group=GROUP,
    decisive=['duplication of key "replicas" in mapping', "deploy/ledger/deployment-03.yaml"],
)
def _yamllint(root: Path) -> bytes:
    env = _pip_tool(root, "yamllint==1.38.0")
    write(root, {".yamllint": "extends: default\nrules:\n  line-length:\n    max: 80\n    level: warning\n"})
    for i in range(240):
        area, n = WORDS[i % 20], i // 20
        write(
            root,
            {
                f"deploy/{area}/deployment-{n:02d}.yaml": f"""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: {area}-{n}
                  annotations:
                    description: "the {area} service, deployment number {n}, managed by the platform team"
                spec:
                  replicas: {2 + i % 3}
                  selector:
                    matchLabels:
                      app: {area}
                  template:
                    metadata:
                      labels:
                        app: {area}
                    spec:
                      containers:
                        - name: app
                          image: registry.internal/{area}:1.{i}
                          env:
                            - name: FEATURE_FLAGS_ENABLED
                              value: yes
                """
            },
        )
    drifted = root / "deploy/ledger/deployment-03.yaml"
    drifted.write_text(drifted.read_text().replace("  selector:", "  replicas: 5\n  selector:", 1))
    return sh(f"{env} yamllint $(find deploy -name '*.yaml' | sort)", root)


@case(
    "bandit_one_high_severity",
    "bandit -r",
    clean=False,
    group=GROUP,
    decisive=[
        "Issue: [B602:subprocess_popen_with_shell_equals_true] subprocess call with shell=True identified",
        "app/export/archive_11.py",
    ],
)
def _bandit(root: Path) -> bytes:
    env = _pip_tool(root, "bandit==1.9.4")
    for i in range(300):
        area, n = WORDS[i % 20], i // 20
        body = [f'"""The {area} helpers, part {n}."""\n', "import random\n"]
        if i % 4 == 0:
            body += [f"def check_{i}(value):\n    assert value >= 0, 'negative {area}'\n    return value\n"]
        if i % 6 == 1:
            body += [f"def jitter_{i}(delay):\n    return delay * (1 + random.random() / 10)\n"]
        if (area, n) == ("export", 11):
            body = ['"""Archive exports."""\n', "import subprocess\n"]
            body += [
                "def archive(name):\n"
                "    cmd = 'tar czf /srv/exports/' + name + '.tgz /srv/exports/' + name\n"
                "    return subprocess.run(cmd, shell=True, check=True)\n"
            ]
        body += [f"def total_{i}(items):\n    return sum(item * {n + 1} for item in items)\n"]
        stem = "archive" if (area, n) == ("export", 11) else area
        write(root, {f"app/{area}/{stem}_{n:02d}.py": "\n".join(body)})
    return sh(f"{env} python -m bandit -r app", root)


# ---------------------------------------------------------------- gettext, patch, tar


@case(
    "msgfmt_check_format_mismatch",
    "msgfmt -c -v (loop over catalogs)",
    clean=False,
    group=GROUP,
    decisive=[
        "po/pt_BR/billing.po:98: number of format specifications in 'msgid' and 'msgstr' does not match",
        "msgfmt: found 1 fatal error",
    ],
)
def _msgfmt(root: Path) -> bytes:
    langs = [
        "de", "fr", "es", "it", "nl", "pl", "pt_BR", "sv", "da", "fi", "nb", "cs", "hu", "ro", "tr", "el",
        "ja", "ko", "zh_CN", "zh_TW", "uk", "ru", "bg", "hr", "sk", "sl", "lt", "lv", "et", "id",
    ]  # fmt: skip
    for lang in langs:
        for domain in WORDS[:12]:
            entries = []
            for k in range(30):
                msgstr = f"[{lang}] deleted %d {domain} records from %s ({k})"
                if (lang, domain, k) == ("pt_BR", "billing", 17):
                    msgstr = f"[{lang}] %s: registros de {domain} apagados ({k})"
                entries.append(
                    f'#: src/{domain}.py:{10 + k * 3}\n#, c-format\nmsgid "deleted %d {domain} records from %s ({k})"\n'
                    f'msgstr "{msgstr}"\n'
                )
            header = (
                'msgid ""\nmsgstr ""\n"Project-Id-Version: shop 4.2\\n"\n"Language: ' + lang + '\\n"\n'
                '"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
                '"Content-Transfer-Encoding: 8bit\\n"\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
            )
            write(root, {f"po/{lang}/{domain}.po": header + "\n" + "\n".join(entries)})
    write(
        root,
        {
            "compile.sh": """
            rc=0
            for po in $(find po -name '*.po' | sort); do
              echo "compiling $po"
              msgfmt -c -v --statistics -o "${po%.po}.mo" "$po" || rc=1
            done
            exit $rc
            """
        },
    )
    return sh("sh compile.sh", root)


@case(
    "patch_verbose_hunk_failed",
    "patch -p1 --verbose",
    clean=False,
    group=GROUP,
    decisive=["Hunk #2 FAILED at 44.", "1 out of 2 hunks FAILED -- saving rejects to file src/tax/tax_34.py.rej"],
)
def _patch(root: Path) -> bytes:
    for side in ("a", "b"):
        for i in range(1400):
            area, n = WORDS[i % 20], i // 20
            lines = [f"# {area} module {n}\n", "import logging\n", f"LOG = logging.getLogger('{area}.{n}')\n"]
            lines += [f"def step_{k}(x):\n    return x + {k}\n" for k in range(30)]
            if side == "b":
                lines[2] = f"LOG = logging.getLogger('shop.{area}.{n}')\n"
                lines[24] = "def step_21(x):\n    return x + 21  # reviewed\n"
            write(root, {f"{side}/src/{area}/{area}_{n:02d}.py": "".join(lines)})
    sh("find a b -exec touch -d '2024-03-01 10:00:00' {} + && (diff -ruN a b > change.patch; true)", root)
    sh("cp -r a work", root)
    drifted = root / "work/src/tax/tax_34.py"
    text = (
        drifted.read_text()
        .replace("def step_20(x):\n    return x + 20\n", "")
        .replace("def step_21(x):\n    return x + 21\n", "def step_21(x, rate=1):\n    return (x + 21) * rate\n")
    )
    drifted.write_text(text.replace("def step_22(x):\n    return x + 22\n", "def step_22(x):\n    return x\n"))
    return sh("cd work && patch -p1 --verbose < ../change.patch", root)


@case(
    "tar_extract_keep_old_files",
    "tar -xvkf",
    clean=False,
    group=GROUP,
    decisive=[
        "tar: release/app/config/production.yml: Cannot open: File exists",
        "tar: Exiting with failure status due to previous errors",
    ],
)
def _tar(root: Path) -> bytes:
    kinds = ["handlers", "models", "views", "serializers", "tasks", "tests"]
    for i in range(11000):
        area = WORDS[i % 20]
        path = f"release/app/{area}/{kinds[(i // 20) % 6]}/{area}_{kinds[(i // 20) % 6]}_{i:05d}.py"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"# {i}\n")
    write(root, {"release/app/config/production.yml": "db: primary\n", "release/app/config/staging.yml": "db: s\n"})
    sh("tar --sort=name -cf release.tar release && rm -rf release", root)
    write(root, {"release/app/config/production.yml": "db: hand-edited on the host\n"})
    return sh("tar -xvkf release.tar", root)


# ---------------------------------------------------------------- docs and HTTP


@case(
    "mkdocs_strict_broken_link",
    "mkdocs build --strict -v",
    clean=False,
    group=GROUP,
    decisive=[
        "Doc file 'guides/billing-17.md' contains a link 'refunds-setup.md'",
        "Aborted with 1 warnings in strict mode!",
    ],
)
def _mkdocs(root: Path) -> bytes:
    (root / "mkdocs.yml").write_text("site_name: Shop handbook\ntheme: mkdocs\n")
    write(root, {"docs/index.md": "# Shop handbook\n\nStart with the [guides](guides/billing-00.md).\n"})
    for i in range(420):
        area, n = WORDS[i % 20], i // 20
        link = "refunds-setup.md" if (area, n) == ("billing", 17) else f"{WORDS[(i + 1) % 20]}-{n:02d}.md"
        write(
            root,
            {
                f"docs/guides/{area}-{n:02d}.md": f"# {area.title()} {n}\n\n"
                f"How the {area} service handles errors, retries and failures.\n\n"
                f"See also [the next guide]({link}).\n"
            },
        )
    return sh("mkdocs build --strict -v", root)


@case(
    "curl_fail_with_body_500",
    "curl -v --fail-with-body",
    clean=False,
    group=GROUP,
    decisive=[
        "< HTTP/1.0 500 Internal Server Error",
        '"error": "export worker pool exhausted"',
        "The requested URL returned error: 500",
    ],
)
def _curl_500(root: Path) -> bytes:
    write(
        root,
        {
            "server.py": """
            import http.server
            import json


            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    done = [{"id": i, "sku": f"SKU-{i:05d}", "status": "exported"} for i in range(300)]
                    todo = [{"id": i, "sku": f"SKU-{i:05d}", "status": "not started"} for i in range(300, 600)]
                    body = json.dumps(
                        {"exported": done, "error": "export worker pool exhausted", "pending": todo}, indent=2
                    ).encode()
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

                def log_message(self, *args):
                    pass


            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            with open("port.txt", "w") as f:
                f.write(str(server.server_address[1]))
            server.handle_request()
            """
        },
    )
    return sh(
        f"({PY} server.py &) ; while [ ! -s port.txt ]; do sleep 0.1; done; "
        "curl -sS -v --fail-with-body http://127.0.0.1:$(cat port.txt)/api/v2/exports/7731",
        root,
    )


# ---------------------------------------------------------------- clean runs that talk about errors


@case(
    "valgrind_clean_no_leaks",
    "valgrind --leak-check=full",
    clean=True,
    group=GROUP,
    decisive=["All heap blocks were freed -- no leaks are possible", "ERROR SUMMARY: 0 errors from 0 contexts"],
)
def _valgrind(root: Path) -> bytes:
    write(
        root,
        {
            "errors.c": """
            #include <stdio.h>
            #include <stdlib.h>

            struct error_entry { char *name; int failures; };

            int main(void) {
                for (int i = 0; i < 3000; i++) {
                    struct error_entry *e = malloc(sizeof *e);
                    e->name = malloc(32);
                    snprintf(e->name, 32, "error_budget_%04d", i);
                    e->failures = 0;
                    printf("recorded %s: %d failures, fatal=no\\n", e->name, e->failures);
                    free(e->name);
                    free(e);
                }
                puts("error budget report: all 3000 services within budget");
                return 0;
            }
            """
        },
    )
    return sh("gcc -g -O0 -o errors errors.c && valgrind --leak-check=full ./errors", root)


@case(
    "make_ignored_errors_clean",
    "make (ignored errors)",
    clean=True,
    group=GROUP,
    decisive=["build complete: libledger.a (300 objects)"],
)
def _make_ignored(root: Path) -> bytes:
    (root / "Makefile").write_text(
        "OBJS = $(patsubst src/%.c,obj/%.o,$(sort $(wildcard src/*.c)))\n\n"
        "all: libledger.a\n"
        '\t@echo "build complete: libledger.a ($(words $(OBJS)) objects)"\n\n'
        "prep:\n"
        "\t-rm obj/stale_errors.o build/failed.lock\n"
        "\t-test -f local-overrides.mk\n"
        "\tmkdir -p obj\n\n"
        "libledger.a: $(OBJS)\n\tar rcs $@ $^\n\n"
        "obj/%.o: src/%.c | prep\n\t$(CC) -O1 -c $< -o $@\n\n"
        ".PHONY: all prep\n"
    )
    stems = ["error_handler", "failure_count", "fatal_guard", "exception_map", "retry_failed", "abort_path"]
    for i in range(300):
        write(root, {f"src/{stems[i % 6]}_{i:03d}.c": f"int {stems[i % 6]}_{i}(int x) {{ return x + {i}; }}\n"})
    return sh("make", root)


@case(
    "ctest_repeat_until_pass_clean",
    "ctest --repeat until-pass",
    clean=True,
    group=GROUP,
    decisive=["100% tests passed, 0 tests failed out of 401"],
)
def _ctest_repeat(root: Path) -> bytes:
    tests = [
        f'add_test(NAME test_{WORDS[i % 20]}_error_handling_{i:03d} COMMAND sh -c "echo checked {i}")'
        for i in range(400)
    ]
    tests.insert(230, "add_test(NAME test_payments_retry_on_failure COMMAND sh ${CMAKE_SOURCE_DIR}/flaky.sh)")
    write(
        root,
        {
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(ledger NONE)\nenable_testing()\n"
            + "\n".join(tests)
            + "\n",
            "flaky.sh": """
            if [ ! -f attempt.flag ]; then
              touch attempt.flag
              echo "ERROR: connection reset by peer while settling batch 7 (attempt 1)"
              exit 1
            fi
            echo "batch 7 settled on attempt 2"
            """,
        },
    )
    return sh("cmake -S . -B build && cd build && ctest --output-on-failure --repeat until-pass:3", root)


@case(
    "docker_logs_retries_clean",
    "docker logs",
    clean=True,
    group=GROUP,
    decisive=["sync finished: 4000 records, 0 errors, 40 retries"],
)
def _docker_logs(root: Path) -> bytes:
    tag = busybox_image(root)
    script = (
        "for i in $(seq 1 4000); do "
        'case $i in *17) echo "WARN upstream reset on record $i, retrying after failure (attempt 1/5)" >&2; '
        'echo "INFO retry succeeded after failure for record $i";; '
        '*500) echo "INFO checkpoint $i: errors: none, failed: 0";; '
        '*) echo "INFO synced record $i";; esac; done; '
        'echo "sync finished: 4000 records, 0 errors, 40 retries"'
    )
    return sh(
        f"cid=$(docker run -d {tag} sh -c '{script}') && docker wait $cid >/dev/null && docker logs $cid; "
        "rc=$?; docker rm $cid >/dev/null; exit $rc",
        root,
    )
