"""Held-out outputs (group ``unseen-12``): a twelfth batch, made to measure the engine after eleven rounds of fixes.

The C toolchain (``cppcheck`` over 160 files with one out-of-bounds write, a ``clang -v`` link
through ``ld.lld --verbose`` of 300 objects with one undefined symbol, an autoconf ``./configure``
that stops on a missing header followed by the whole ``config.log``, ``bison -Wall`` over many
grammars with one unexpected conflict), text tools (a ``gawk`` report that dies on a division by
zero after thousands of rows, ``sed -s -n`` over a manifest of config files with one that is gone,
``join`` over a customer file with one line out of order), process runners (``xargs -P`` hashing a
file list with one missing file, GNU ``parallel --halt soon,fail=1`` compiling 400 modules with one
syntax error, ``timeout --verbose`` ending a worker stuck on a lock), ``dpkg -i`` of many local
packages into a private admin directory with one unmet dependency, a 2 MB ``mariadb -vv --force``
migration log with one duplicate key), and clean runs whose text talks about errors (``dpkg-deb``
building and listing packages such as ``acme-error-pages`` with ``error_codes.h``, ``mariadb-check``
over tables named ``error_log`` and ``failed_jobs``, an ``objdump -dr`` listing of functions such as
``report_failure``, ``ldconfig -p`` of a cache holding ``liberror_report.so.1``). Labels were written
with each scenario, before the engine saw the output. Needs ``clang``, ``lld``, ``cppcheck``,
``autoconf``, ``bison``, ``gawk``, ``parallel`` and ``mariadb-server`` (Debian packages).
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, case, sh, write

GROUP = "unseen-12"


def _c_module(area: str, i: int) -> str:
    return f"""
    #include <string.h>

    struct {area}_row {{
        int id;
        long amount;
        char note[32];
    }};

    long {area}_sum_{i}(const struct {area}_row *rows, int n)
    {{
        long total = 0;
        for (int k = 0; k < n; k++)
            total += rows[k].amount;
        return total;
    }}

    void {area}_label_{i}(struct {area}_row *row, const char *text)
    {{
        strncpy(row->note, text, sizeof(row->note) - 1);
        row->note[sizeof(row->note) - 1] = '\\0';
    }}
    """


# ---------------------------------------------------------------- C toolchain


@case(
    "cppcheck_many_files_out_of_bounds",
    "cppcheck --enable=warning,portability",
    clean=False,
    group=GROUP,
    decisive=["src/ledger/ledger_post.c:", "Array 'recent[16]' accessed at index 16, which is out of bounds."],
)
def _cppcheck(root: Path) -> bytes:
    for i in range(160):
        area = WORDS[i % 20]
        write(root, {f"src/{area}/{area}_{i:03d}.c": _c_module(area, i)})
    write(
        root,
        {
            "src/ledger/ledger_post.c": """
            struct entry {
                int id;
                long cents;
            };

            long ledger_recent_total(const struct entry *entries)
            {
                long recent[16];
                long total = 0;
                for (int i = 0; i <= 16; i++)
                    recent[i] = entries[i].cents;
                for (int i = 0; i < 16; i++)
                    total += recent[i];
                return total;
            }
            """
        },
    )
    return sh("cppcheck --enable=warning,portability --error-exitcode=1 --std=c11 src", root)


@case(
    "clang_lld_verbose_undefined_symbol",
    "clang -v -fuse-ld=lld -Wl,--verbose (link)",
    clean=False,
    group=GROUP,
    decisive=["ld.lld: error: undefined symbol: ledger_post_entry", "billing_120.o:(billing_close_120)"],
)
def _clang_link(root: Path) -> bytes:
    for i in range(300):
        area = WORDS[i % 20]
        body = _c_module(area, i)
        if i == 120:
            body += """
            int ledger_post_entry(long cents);

            int billing_close_120(long cents)
            {
                return ledger_post_entry(cents);
            }
            """
        write(root, {f"src/{area}_{i:03d}.c": body})
    write(root, {"src/main.c": "int main(void)\n{\n    return 0;\n}\n"})
    sh("mkdir -p obj && for f in src/*.c; do clang -O1 -c $f -o obj/$(basename $f .c).o; done", root)
    return sh("clang -v -fuse-ld=lld -Wl,--verbose -o shop obj/*.o", root)


_HEADERS = (
    "stdio.h stdlib.h string.h strings.h unistd.h fcntl.h errno.h limits.h stdint.h inttypes.h signal.h "
    "sys/types.h sys/stat.h sys/time.h sys/socket.h sys/select.h sys/mman.h sys/resource.h sys/uio.h "
    "sys/sysctl.h sys/event.h netinet/in.h arpa/inet.h netdb.h poll.h pthread.h dlfcn.h locale.h langinfo.h "
    "termios.h syslog.h pwd.h grp.h getopt.h iconv.h wchar.h zlib.h"
)
_FUNCS = (
    "strlcpy strlcat strndup strnlen memmem memrchr getline getdelim posix_memalign clock_gettime "
    "nanosleep gettimeofday epoll_create1 kqueue accept4 pipe2 dup3 sendfile splice arc4random getrandom "
    "explicit_bzero reallocarray setproctitle prctl sched_getaffinity pthread_setname_np fdatasync fallocate "
    "posix_fadvise mkostemp openat fstatat utimensat"
)


@case(
    "configure_missing_header_config_log",
    "autoconf && ./configure (then config.log)",
    clean=False,
    group=GROUP,
    decisive=["configure: error: lmdb.h not found", "fatal error: lmdb.h: No such file or directory"],
    note="after the failure the whole config.log is printed, with the normal failed probes of other checks",
)
def _configure(root: Path) -> bytes:
    write(
        root,
        {
            "src/main.c": "int main(void) { return 0; }\n",
            "Makefile.in": "all:\n\t@CC@ @CFLAGS@ -o acme-store src/main.c\n",
            "configure.ac": f"""
            AC_INIT([acme-store], [2.4.0], [dev@example.com])
            AC_CONFIG_SRCDIR([src/main.c])
            AC_CONFIG_HEADERS([config.h])
            AC_PROG_CC
            AC_USE_SYSTEM_EXTENSIONS
            AC_SYS_LARGEFILE
            AC_C_BIGENDIAN
            AC_CHECK_HEADERS([{_HEADERS}])
            AC_CHECK_FUNCS([{_FUNCS}])
            AC_CHECK_SIZEOF([long])
            AC_CHECK_SIZEOF([size_t])
            AC_CHECK_SIZEOF([off_t])
            AC_SEARCH_LIBS([dlopen], [dl])
            AC_SEARCH_LIBS([pthread_create], [pthread])
            AC_CHECK_LIB([z], [deflate])
            AC_CHECK_HEADER([lmdb.h], [],
              [AC_MSG_ERROR([lmdb.h not found: install the LMDB development files (liblmdb-dev)])])
            AC_CHECK_LIB([lmdb], [mdb_env_create])
            AC_CONFIG_FILES([Makefile])
            AC_OUTPUT
            """,
        },
    )
    sh("autoconf", root)
    return sh("./configure --prefix=/opt/acme || { cat config.log; exit 1; }", root)


def _grammar(name: str, extra: str = "") -> str:
    return f"""
    %define api.prefix {{{name}_}}
    %expect 0
    %token NUM IDENT IF THEN ELSE
    %left '+' '-'
    %left '*' '/'

    %%

    program: %empty | program stmt ;
    stmt: IDENT '=' expr ';'
        | IF expr THEN stmt{extra}
        ;
    expr: NUM
        | IDENT
        | expr '+' expr
        | expr '-' expr
        | expr '*' expr
        | expr '/' expr
        | '(' expr ')'
        ;

    %%
    """


@case(
    "bison_loop_unexpected_conflict",
    "bison -Wall -Wcounterexamples (loop over grammars)",
    clean=False,
    group=GROUP,
    decisive=["filters.y: error: shift/reduce conflicts: 1 found, 0 expected", "shift/reduce conflict on token ELSE"],
)
def _bison(root: Path) -> bytes:
    for i in range(60):
        name = f"{WORDS[i % 20]}_{i // 20}"
        write(root, {f"grammars/{name}.y": _grammar(name)})
    write(root, {"grammars/filters.y": _grammar("filters", "\n        | IF expr THEN stmt ELSE stmt")})
    return sh(
        'mkdir -p build; st=0; for g in grammars/*.y; do n=$(basename $g .y); echo "bison $g -> build/$n.c"; '
        "bison -Wall -Wcounterexamples --defines=build/$n.h -o build/$n.c $g || st=1; wc -l build/$n.c 2>/dev/null; "
        "done; exit $st",
        root,
    )


# ---------------------------------------------------------------- text tools


@case(
    "gawk_division_by_zero",
    "gawk -f",
    clean=False,
    group=GROUP,
    decisive=["fatal: division by zero attempted", "FNR=2842"],
)
def _gawk(root: Path) -> bytes:
    rows = ["sku,region,units,revenue"]
    for i in range(5000):
        units = 0 if i == 2840 else i % 17 + 1
        rows.append(f"SKU-{i:05d},{WORDS[i % 20]},{units},{(i * 37) % 9000 + 100}.{i % 100:02d}")
    write(
        root,
        {
            "sales.csv": "\n".join(rows) + "\n",
            "report.awk": """
            BEGIN { FS = ","; OFS = "\\t" }
            FNR == 1 { print "sku", "region", "units", "revenue", "unit_price"; next }
            {
                price = $4 / $3
                total[$2] += $4
                printf "%s\\t%s\\t%d\\t%.2f\\t%.2f\\n", $1, $2, $3, $4, price
            }
            END { for (r in total) printf "total %s %.2f\\n", r, total[r] }
            """,
        },
    )
    return sh("gawk -f report.awk sales.csv", root)


@case(
    "sed_manifest_missing_file",
    "sed -s -n (over a manifest of files)",
    clean=False,
    group=GROUP,
    decisive=["sed: can't read conf/payments/gateway_eu.conf: No such file or directory"],
)
def _sed(root: Path) -> bytes:
    files = []
    for i in range(180):
        area = WORDS[i % 20]
        rel = f"conf/{area}/{area}_{i:03d}.conf"
        files.append(rel)
        lines = [f"# {area} service {i}", f"{area}_url = https://{area}-{i}.internal.example.com/v2"]
        lines += [f"{area}_timeout_ms = {1000 + i}", f"{area}_retries = {i % 4}", f"{area}_pool = {i % 9 + 1}"]
        lines += [f"callback_url = https://hooks.example.com/{area}/{i}", f"audit_url = https://audit.example.com/{i}"]
        write(root, {rel: "\n".join(lines) + "\n"})
    files.insert(97, "conf/payments/gateway_eu.conf")
    write(root, {"manifest.txt": "\n".join(files) + "\n", "extract.sed": "/_url *=/{\nF\n=\np\n}\n"})
    return sh("sed -s -n -f extract.sed $(cat manifest.txt)", root)


@case(
    "join_unsorted_customers",
    "join -t,",
    clean=False,
    group=GROUP,
    decisive=["join: customers.csv:1843: is not sorted: C01790", "join: input is not in sorted order"],
)
def _join(root: Path) -> bytes:
    ids = [f"C{i:05d}" for i in range(3000)]
    # line 1843 of customers.csv (1-based) holds an id that belongs much earlier
    cust_ids = ids[:]
    moved = cust_ids.pop(1790)
    cust_ids.insert(1842, moved)
    customers = [f"{c},{WORDS[k % 20]}-customer-{k},{['DE', 'FR', 'NL', 'PL'][k % 4]}" for k, c in enumerate(cust_ids)]
    orders = [f"{c},ORD-{k:05d},{(k * 53) % 700 + 5}.{k % 100:02d}" for k, c in enumerate(ids) if k % 3 != 1]
    write(root, {"customers.csv": "\n".join(customers) + "\n", "orders.csv": "\n".join(orders) + "\n"})
    return sh("join -t, orders.csv customers.csv", root)


# ---------------------------------------------------------------- process runners


@case(
    "xargs_parallel_sha1sum_missing_file",
    "xargs -P 4",
    clean=False,
    group=GROUP,
    decisive=[
        "sha1sum: assets/img/ledger_0411.png: No such file or directory",
        "xargs: sh: exited with status 255; aborting",
    ],
)
def _xargs(root: Path) -> bytes:
    names = []
    for i in range(1200):
        rel = f"assets/img/{WORDS[i % 20]}_{i:04d}.png"
        names.append(rel)
        write(root, {rel: f"image {i} " * (i % 7 + 1) + "\n"})
    (root / "assets/img/ledger_0411.png").unlink()
    write(root, {"manifest.txt": "\n".join(names) + "\n"})
    return sh("xargs -P 4 -n 20 sh -c 'sha1sum \"$@\" || exit 255' _ < manifest.txt", root)


@case(
    "parallel_halt_syntax_error",
    "parallel --halt soon,fail=1 --tag",
    clean=False,
    group=GROUP,
    decisive=['File "src/refunds_244.py", line 2', "'(' was never closed", "parallel: This job failed:"],
)
def _parallel(root: Path) -> bytes:
    for i in range(400):
        area = WORDS[i % 20]
        body = f"def {area}_total_{i}(items):\n    return sum(item.amount for item in items)\n"
        if i == 244:
            body = f"def {area}_total_{i}(items):\n    total = sum(item.amount for item in items\n    return total\n"
        write(root, {f"src/{area}_{i:03d}.py": body})
    cmd = f"{PY} -m py_compile {{}} && echo compiled {{}}"
    return sh(f"ls src/*.py | parallel --will-cite --tag --halt soon,fail=1 -j 4 '{cmd}'", root)


@case(
    "timeout_verbose_worker_stuck_on_lock",
    "timeout --verbose",
    clean=False,
    group=GROUP,
    decisive=["timeout: sending signal TERM to command", "export: waiting for lock on state/export.lock"],
)
def _timeout(root: Path) -> bytes:
    write(
        root,
        {
            "worker.py": """
            import fcntl
            import os

            os.makedirs("state", exist_ok=True)
            for i in range(2500):
                area = ["billing", "orders", "cart", "tax", "refunds"][i % 5]
                print(f"[worker] processed {area} item {i:05d}: ok ({i % 13 + 1} rows)")
            print("[worker] export: waiting for lock on state/export.lock")
            with open("state/export.lock", "w") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                print("[worker] export: lock taken")
            print("[worker] done")
            """
        },
    )
    (root / "state").mkdir()
    holder = "flock state/export.lock sleep 30 >/dev/null 2>&1 & echo $! > holder.pid"
    try:
        return sh(f"{holder}; sleep 0.5; timeout --verbose -k 2 5 {PY} -u worker.py", root)
    finally:
        sh("kill $(cat holder.pid) 2>/dev/null; true", root)


# ---------------------------------------------------------------- Debian packages


def _deb(root: Path, name: str, depends: str, files: dict[str, str], desc: str) -> None:
    dep = f"Depends: {depends}\n" if depends else ""
    control = (
        f"Package: {name}\nVersion: 2.4.{len(name) % 7}-1\nSection: misc\nPriority: optional\n"
        f"Architecture: all\nMaintainer: Acme Packaging <packaging@example.com>\n{dep}"
        f"Description: {desc}\n Part of the Acme shop platform, built from the monorepo.\n"
    )
    write(root, {f"pkgs/{name}/DEBIAN/control": control})
    write(root, {f"pkgs/{name}/{rel}": text for rel, text in files.items()})


def _deb_tree(root: Path, name: str, n: int, ext: str) -> dict[str, str]:
    return {f"opt/acme/{name}/{name}_{k:02d}.{ext}": f"{name} part {k}\n" for k in range(n)}


@case(
    "dpkg_i_dependency_problems",
    "dpkg -i (private admin dir)",
    clean=False,
    group=GROUP,
    decisive=[
        "dpkg: dependency problems prevent configuration of acme-billing:",
        "acme-billing depends on libacme-ledger (>= 2.1); however:",
        "Package libacme-ledger is not installed.",
    ],
)
def _dpkg_i(root: Path) -> bytes:
    _deb(root, "acme-common", "", _deb_tree(root, "common", 12, "conf"), "shared configuration")
    for area in WORDS:
        if area == "billing":
            continue
        _deb(root, f"acme-{area}", "acme-common", _deb_tree(root, area, 8, "py"), f"the {area} service")
    _deb(root, "acme-billing", "acme-common, libacme-ledger (>= 2.1)", _deb_tree(root, "billing", 8, "py"), "billing")
    for sub in ("info", "updates", "triggers"):
        (root / "admin" / sub).mkdir(parents=True)
    (root / "admin" / "status").touch()
    (root / "admin" / "available").touch()
    (root / "inst").mkdir()
    sh("mkdir -p debs && for d in pkgs/*; do dpkg-deb --root-owner-group --build $d debs/ >/dev/null; done", root)
    return sh(f"dpkg --admindir={root}/admin --instdir={root}/inst --log={root}/dpkg.log -i debs/*.deb", root)


@case("dpkg_deb_build_and_list_clean", "dpkg-deb --build && dpkg-deb -I -c", clean=True, group=GROUP, decisive=[])
def _dpkg_deb(root: Path) -> bytes:
    pages = {f"usr/share/acme/error-pages/{code}.html": f"<h1>{code}</h1>\n" for code in (400, 401, 403, 404, 500, 502)}
    pages |= {"usr/share/acme/error-pages/fatal-error.html": "<h1>fatal error</h1>\n"}
    _deb(root, "acme-error-pages", "", pages, "static error pages for HTTP 4xx/5xx failures")
    headers = {
        f"usr/include/acme/{h}.h": f"/* {h} */\n"
        for h in ("error_codes", "errors", "failure_reasons", "fatal", "invalid_input", "panic", "status")
    }
    _deb(root, "libacme-errors-dev", "", headers, "error codes and failure reasons (development headers)")
    _deb(
        root,
        "acme-fatal-signal-handler",
        "",
        {"usr/lib/acme/report_failure.so": "elf\n", "etc/acme/fatal_signals.conf": "SIGSEGV=report\n"},
        "reports fatal signals and crashes to the error tracker",
    )
    for area in WORDS[:9]:
        _deb(root, f"acme-{area}", "", _deb_tree(root, area, 10, "py"), f"the {area} service (retries failed jobs)")
    return sh(
        "mkdir -p debs && for d in pkgs/*; do dpkg-deb --root-owner-group --build $d debs/; done && "
        "for f in debs/*.deb; do dpkg-deb -I $f; dpkg-deb -c $f; done",
        root,
        env={"SOURCE_DATE_EPOCH": "1717232400"},
    )


# ---------------------------------------------------------------- MariaDB


def _mariadb_start(root: Path) -> str:
    data, sock = root / "db", root / "mysqld.sock"
    sh(
        f"mariadb-install-db --no-defaults --datadir={data} --user=root --auth-root-authentication-method=normal "
        "--skip-test-db >/dev/null 2>&1",
        root,
    )
    sh(
        f"/usr/sbin/mariadbd --no-defaults --datadir={data} --socket={sock} --skip-networking --user=root "
        f"--pid-file={root}/mysqld.pid --innodb-flush-log-at-trx-commit=0 >{root}/server.log 2>&1 &",
        root,
    )
    sh(f"for i in $(seq 50); do [ -S {sock} ] && break; sleep 0.2; done; sleep 0.5", root)
    return f"--no-defaults -S {sock} -uroot"


def _mariadb_stop(root: Path, conn: str) -> None:
    sh(f"mariadb-admin {conn} shutdown; sleep 1", root)


def _migration() -> tuple[str, int]:
    lines = [
        "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(64), country CHAR(2));",
        "CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, ref VARCHAR(16) NOT NULL, customer_id INT,",
        "  total DECIMAL(10,2), UNIQUE KEY uniq_order_ref (ref));",
    ]
    for i in range(1500):
        lines.append(f"INSERT INTO customers VALUES ({i}, '{WORDS[i % 20]}-customer-{i}', 'DE');")
    dup = 0
    for i in range(9000):
        lines.append(f"INSERT INTO orders (ref, customer_id, total) VALUES ('ORD-{i:05d}', {i % 1500}, {i % 700}.50);")
        if i == 5200:
            lines.append("INSERT INTO orders (ref, customer_id, total) VALUES ('ORD-04417', 1201, 88.10);")
            dup = len(lines)
    lines += [
        "UPDATE orders SET total = total * 1.19 WHERE customer_id < 300;",
        "CREATE INDEX idx_orders_customer ON orders (customer_id);",
        "SELECT COUNT(*) AS orders_loaded FROM orders;",
    ]
    return "\n".join(lines) + "\n", dup


@case(
    "mariadb_migration_duplicate_key_big",
    "mariadb -vv --force < migration.sql",
    clean=False,
    group=GROUP,
    decisive=["ERROR 1062 (23000) at line 6705: Duplicate entry 'ORD-04417' for key 'uniq_order_ref'"],
    note="about 10,500 statements echoed with -vv, each with its 'Query OK'; one duplicate key in the middle",
)
def _mariadb_migration(root: Path) -> bytes:
    sql, dup = _migration()
    assert dup == 6705, dup
    write(root, {"migration.sql": sql})
    conn = _mariadb_start(root)
    try:
        sh(f"mariadb {conn} -e 'CREATE DATABASE shop'", root)
        return sh(f"mariadb {conn} -vv --force shop < migration.sql", root)
    finally:
        _mariadb_stop(root, conn)


@case("mariadb_check_error_tables_clean", "mariadb-check --all-databases -v", clean=True, group=GROUP, decisive=[])
def _mariadb_check(root: Path) -> bytes:
    tables = ["error_log", "failed_jobs", "fatal_alerts", "invalid_logins", "exceptions", "retry_queue"]
    tables += [f"{area}_events" for area in WORDS]
    stmts = ["CREATE DATABASE shop; CREATE DATABASE ops; USE ops;"]
    for t in tables:
        stmts.append(f"CREATE TABLE {t} (id INT PRIMARY KEY, message VARCHAR(80), errors INT DEFAULT 0);")
        stmts += [f"INSERT INTO {t} VALUES ({k}, 'failed to charge card {k}: error 402', 0);" for k in range(20)]
    stmts.append("USE shop;")
    for area in WORDS:
        stmts.append(f"CREATE TABLE {area} (id INT PRIMARY KEY, error_count INT, last_failure DATETIME) ENGINE=MyISAM;")
    write(root, {"setup.sql": "\n".join(stmts) + "\n"})
    conn = _mariadb_start(root)
    try:
        sh(f"mariadb {conn} < setup.sql", root)
        return sh(f"mariadb-check {conn} --all-databases --check --extended -v", root)
    finally:
        _mariadb_stop(root, conn)


# ---------------------------------------------------------------- binary listings


@case("objdump_disassembly_error_handlers_clean", "objdump -dr", clean=True, group=GROUP, decisive=[])
def _objdump(root: Path) -> bytes:
    names = ["report_failure", "handle_fatal_error", "on_invalid_argument", "count_errors", "abort_with_error_code"]
    names += [f"{area}_error_handler" for area in WORDS] + [f"retry_failed_{area}" for area in WORDS]
    src = ["#include <stdio.h>", "#include <stdlib.h>", "static int error_total;"]
    for k, name in enumerate(names):
        src.append(
            f"int {name}(int code, const char *what)\n{{\n    error_total += code;\n"
            f'    if (code > {k + 3})\n        fprintf(stderr, "{name}: %s (%d)\\n", what, code);\n'
            f"    return error_total * {k + 2} - code;\n}}"
        )
    write(root, {"errors.c": "\n".join(src) + "\n"})
    sh("clang -O1 -c errors.c -o errors.o", root)
    return sh("objdump -dr errors.o", root)


@case("ldconfig_p_error_libraries_clean", "ldconfig -p", clean=True, group=GROUP, decisive=[])
def _ldconfig(root: Path) -> bytes:
    libs = {
        "liberror_report.so.1": "1.4.0",
        "libfatal_signals.so.2": "2.0.1",
        "libfailover.so.3": "3.1.0",
        "libpanic_handler.so.1": "1.0.7",
        "libinvalid_input.so.0": "0.9.2",
        "libacme_errors.so.5": "5.2.0",
    }
    (root / "lib").mkdir()
    for soname, version in libs.items():
        base = soname.split(".so")[0]
        write(root, {f"{base}.c": f"int {base[3:]}_version(void) {{ return {version.split('.')[0]}; }}\n"})
        sh(f"clang -shared -fPIC -Wl,-soname,{soname} -o lib/{base}.so.{version} {base}.c", root)
    write(root, {"ld.so.conf": f"{root}/lib\n/usr/lib/x86_64-linux-gnu\n"})
    sh(f"ldconfig -X -C {root}/ld.so.cache -f {root}/ld.so.conf", root)
    return sh(f"ldconfig -p -C {root}/ld.so.cache", root)
