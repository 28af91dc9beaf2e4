"""Held-out outputs (group ``unseen-1``): compilers, linters and test runners the first corpus did not have.

Labels were written with each scenario, before the engine saw the output.
Go needs the ``golang-go`` package, shellcheck the ``shellcheck`` package, Maven its local
repository; the Python and JavaScript tools are installed from PyPI and npm into the case's
own folder.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, case, scrub, sh, write

GROUP = "unseen-1"


def _pip_tool(root: Path, *requirements: str) -> str:
    """Install ``requirements`` into ``root/tools``; the environment prefix that runs them."""
    sh(f"{PY} -m pip install -q --no-cache-dir --target {root / 'tools'} {' '.join(requirements)}", root)
    return f"PYTHONPATH={root / 'tools'} PATH={root / 'tools' / 'bin'}:$PATH"


def _npm(root: Path, *packages: str) -> None:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh(f"npm install --no-audit --no-fund --silent {' '.join(packages)}", root)


# ---------------------------------------------------------------- Go


def _go_module(root: Path, name: str) -> None:
    (root / "go.mod").write_text(f"module example.com/{name}\n\ngo 1.19\n")


@case(
    "go_test_got_want",
    "go test",
    clean=False,
    group=GROUP,
    decisive=["--- FAIL: TestMinutes/h1_m45", "got 90", "want 105", "FAIL\texample.com/dur"],
)
def _go_test_fail(root: Path) -> bytes:
    _go_module(root, "dur")
    (root / "dur.go").write_text(
        "package dur\n\n// Minutes converts hours and minutes to minutes.\nfunc Minutes(h, m int) int {\n"
        "\tif m == 45 {\n\t\treturn h*60 + 30\n\t}\n\treturn h*60 + m\n}\n"
    )
    rows = [(h, m) for h in range(60) for m in (0, 15, 30)]
    rows.insert(100, (1, 45))
    table = "".join(f'\t\t{{"h{h}_m{m}", {h}, {m}, {h * 60 + m}}},\n' for h, m in rows)
    (root / "dur_test.go").write_text(
        'package dur\n\nimport "testing"\n\nfunc TestMinutes(t *testing.T) {\n'
        "\tcases := []struct {\n\t\tname    string\n\t\th, m, want int\n\t}{\n" + table + "\t}\n"
        "\tfor _, tc := range cases {\n\t\ttc := tc\n\t\tt.Run(tc.name, func(t *testing.T) {\n"
        "\t\t\tgot := Minutes(tc.h, tc.m)\n\t\t\tif got != tc.want {\n"
        '\t\t\t\tt.Errorf("Minutes(%d, %d):\\n got %d\\nwant %d", tc.h, tc.m, got, tc.want)\n'
        "\t\t\t}\n\t\t})\n\t}\n}\n"
    )
    return sh("go test -v -count=1 .", root)


@case(
    "go_test_pass_error_names",
    "go test",
    clean=True,
    group=GROUP,
    decisive=["ok  \texample.com/retry"],
)
def _go_test_pass(root: Path) -> bytes:
    _go_module(root, "retry")
    (root / "retry.go").write_text(
        "package retry\n\n// Next doubles a backoff.\nfunc Next(d int) int { return 2 * d }\n"
    )
    tests = ['package retry\n\nimport "testing"\n']
    for i in range(150):
        for name in ("ErrorWrapping", "FailoverAfterTimeout", "PanicRecovery"):
            tests.append(
                f"func Test{name}_{i:03d}(t *testing.T) {{\n\tif Next({i}) != {2 * i} {{\n\t\tt.Fatal()\n\t}}\n}}\n"
            )
    (root / "retry_test.go").write_text("\n".join(tests))
    return sh("go test -v -count=1 .", root)


@case(
    "go_build_type_error",
    "go build",
    clean=False,
    group=GROUP,
    decisive=["pkg/p117/p.go:5:9: cannot use id (variable of type string) as type int"],
)
def _go_build(root: Path) -> bytes:
    _go_module(root, "shop")
    for i in range(200):
        body = "return id" if i == 117 else "return len(id)"
        write(
            root,
            {
                f"pkg/p{i:03d}/p.go": f"package p{i:03d}\n\n// ID is a length.\n"
                f"func ID(id string) int {{\n\t{body}\n}}\n"
            },
        )
    return sh("go build -v ./... 2>&1", root, env={"GOFLAGS": "-p=2"})


@case(
    "go_nil_panic",
    "go run",
    clean=False,
    group=GROUP,
    decisive=[
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "main.(*Cache).Get",
        "main.go:11",
    ],
)
def _go_panic(root: Path) -> bytes:
    _go_module(root, "cachesvc")
    (root / "main.go").write_text(
        'package main\n\nimport "log"\n\ntype Cache struct {\n\tm map[string]int\n}\n\n'
        "// Get reads a key.\nfunc (c *Cache) Get(k string) int {\n\treturn c.m[k]\n}\n\n"
        "func main() {\n\tc := &Cache{m: map[string]int{}}\n\tfor i := 0; i < 3000; i++ {\n"
        '\t\tlog.Printf("cache get key=user:%d hit=%t", i, i%3 == 0)\n\t}\n'
        '\tvar missing *Cache\n\t_ = c\n\tlog.Print(missing.Get("user:1"))\n}\n'
    )
    return sh("go run main.go", root)


# ---------------------------------------------------------------- shell linters


@case(
    "shellcheck_one_error",
    "shellcheck",
    clean=False,
    group=GROUP,
    decisive=["deploy.sh line 163:", "SC2066 (error)"],
)
def _shellcheck(root: Path) -> bytes:
    lines = ["#!/bin/bash", "# deploy the release to every host"]
    for i in range(80):
        lines.append(f"host_{i}=web{i}.internal")
        lines.append(f"scp release.tar.gz $DEPLOY_USER@$host_{i}:/srv/app/")
    lines.append('for f in "$(ls /srv/app/releases)"; do echo "$f"; done')
    (root / "deploy.sh").write_text("\n".join(lines) + "\n")
    return sh("shellcheck deploy.sh", root)


# ---------------------------------------------------------------- Python linters and runners


@case(
    "flake8_one_undefined_name",
    "flake8",
    clean=False,
    group=GROUP,
    decisive=["checkout.py:6:12: F821 undefined name 'reciept'"],
)
def _flake8(root: Path) -> bytes:
    env = _pip_tool(root, "flake8==7.1.1")
    for i in range(120):
        write(root, {f"src/shop/m{i:03d}.py": f'MESSAGE_{i} = "{"order processed and acknowledged " * 3}"\n'})
    write(
        root,
        {
            "src/shop/checkout.py": """
            def total(items):
                return sum(items)


            def receipt(items):
                return reciept(total(items))
            """
        },
    )
    return sh(f"{env} {PY} -m flake8 --count src", root)


@case(
    "pylint_no_member",
    "pylint",
    clean=False,
    group=GROUP,
    decisive=["Instance of 'Order' has no 'totl' member", "Your code has been rated at"],
)
def _pylint(root: Path) -> bytes:
    env = _pip_tool(root, "pylint==3.3.1")
    for i in range(60):
        write(root, {f"shop/m{i:03d}.py": f"def handler_{i}(x):\n    return x + {i}\n"})
    write(
        root,
        {
            "shop/__init__.py": "",
            "shop/orders.py": """
            class Order:
                def __init__(self):
                    self.total = 0


            def charge():
                order = Order()
                return order.totl * 100
            """,
        },
    )
    return sh(f"{env} {PY} -m pylint shop", root)


def _black_tree(root: Path, bad: int | None) -> str:
    env = _pip_tool(root, "black==24.10.0")
    for i in range(200):
        text = f"def f_{i}(x):\n    return x + {i}\n"
        if i == bad:
            text = f"def f_{i}( x ):\n    return {{'a':x+{i}}}\n"
        write(root, {f"src/m{i:03d}.py": text})
    return env


@case(
    "black_check_one_file",
    "black --check",
    clean=False,
    group=GROUP,
    decisive=["would reformat /tmp/work/src/m117.py", "1 file would be reformatted, 199 files would be left unchanged"],
)
def _black_bad(root: Path) -> bytes:
    env = _black_tree(root, 117)
    return scrub(sh(f"{env} {PY} -m black --check -v src", root), root)


@case("black_check_clean", "black --check", clean=True, group=GROUP, decisive=["200 files would be left unchanged"])
def _black_ok(root: Path) -> bytes:
    env = _black_tree(root, None)
    return scrub(sh(f"{env} {PY} -m black --check -v src", root), root)


def _warning_suite(root: Path) -> None:
    for name in "abcde":
        tests = [
            "import warnings\n\n\ndef legacy():\n    warnings.warn('legacy_api() is deprecated', DeprecationWarning)\n"
        ]
        for i in range(100):
            tests.append(f"def test_{name}_{i:03d}():\n    legacy()\n    assert {i} + 1 == {i + 1}\n")
        if name == "b":
            tests[21] = (
                "def test_refund_currency():\n    legacy()\n    currency = 'EUR'\n    assert currency == 'USD'\n"
            )
        (root / f"test_{name}.py").write_text("\n".join(tests))


@case(
    "pytest_x_warnings",
    "pytest -x",
    clean=False,
    group=GROUP,
    decisive=["assert 'EUR' == 'USD'", "test_refund_currency", "1 failed, 120 passed"],
)
def _pytest_x(root: Path) -> bytes:
    _warning_suite(root)
    return sh(f"{PY} -m pytest -p no:cacheprovider -x -v .", root)


@case(
    "hypothesis_falsifying",
    "pytest + hypothesis",
    clean=False,
    group=GROUP,
    decisive=["Failing test case: test_fee_is_capped(", "amount=1020", "1 failed, 300 passed"],
)
def _hypothesis(root: Path) -> bytes:
    tests = ["from hypothesis import given, strategies as st\n\n\ndef fee(amount):\n    return amount // 20\n"]
    tests.append(
        "@given(st.integers(min_value=0, max_value=10**6))\n"
        "def test_fee_is_capped(amount):\n    assert fee(amount) <= 50\n"
    )
    tests += [f"def test_fee_{i:03d}():\n    assert fee({20 * i}) == {i}\n" for i in range(300)]
    (root / "test_fees.py").write_text("\n".join(tests))
    return sh(f"{PY} -m pytest -p no:cacheprovider -v --hypothesis-seed=0 .", root)


@case(
    "pytest_color_clean_error_names",
    "pytest --color=yes",
    clean=True,
    group=GROUP,
    decisive=["600 passed"],
)
def _pytest_color(root: Path) -> bytes:
    tests = []
    for i in range(200):
        for name in ("error_path", "failover", "warning_banner"):
            tests.append(f"def test_{name}_{i:03d}():\n    assert 'error' in 'error {i}'\n")
    (root / "test_errors.py").write_text("\n".join(tests))
    return sh(f"{PY} -m pytest -p no:cacheprovider -v --color=yes .", root)


@case(
    "junit_xml_report",
    "pytest --junitxml + xmllint",
    clean=False,
    group=GROUP,
    decisive=['failures="1"', 'name="test_refund_currency"', "assert 'EUR' == 'USD'"],
)
def _junit(root: Path) -> bytes:
    _warning_suite(root)
    sh(f"{PY} -m pytest -p no:cacheprovider -q -W ignore --junitxml=report.xml .", root)
    return sh("xmllint --format report.xml", root)


@case(
    "pip_resolution_impossible",
    "pip install",
    clean=False,
    group=GROUP,
    decisive=["requests 2.31.0 depends on urllib3<3 and >=1.21.1", "ResolutionImpossible"],
)
def _pip_conflict(root: Path) -> bytes:
    return sh(
        f"{PY} -m pip install -v --dry-run --ignore-installed --no-cache-dir requests==2.31.0 urllib3==1.20", root
    )


# ---------------------------------------------------------------- JavaScript and TypeScript


def _ts_project(root: Path) -> None:
    _npm(root, "typescript@5.6.3")
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "target": "es2020"}, "include": ["src"]}\n'
    )
    for i in range(200):
        write(root, {f"src/m{i:03d}.ts": f"export function price{i}(n: number): number {{\n  return n * {i};\n}}\n"})
    billing = ["export interface Invoice {", "  id: string;", "  cents: number;", "}", ""]
    billing += ["export function build(id: string): Invoice {", "  const inv: Invoice = { id, cents: 0 };"]
    billing += ["  inv.cents += 1;"] * 6 + ["  inv.cents = '100';", "  return inv;", "}"]
    (root / "src" / "billing.ts").write_text("\n".join(billing) + "\n")


@case(
    "tsc_type_error_list_files",
    "tsc",
    clean=False,
    group=GROUP,
    decisive=["src/billing.ts(14,3): error TS2322: Type 'string' is not assignable to type 'number'"],
)
def _tsc(root: Path) -> bytes:
    _ts_project(root)
    return sh("npx tsc --noEmit --listFiles --pretty false -p .", root)


@case(
    "tsc_pretty_color",
    "tsc --pretty",
    clean=False,
    group=GROUP,
    decisive=["billing.ts:14:3 - error TS2322", "inv.cents = '100';", "Found 1 error in src/billing.ts:14"],
)
def _tsc_pretty(root: Path) -> bytes:
    _ts_project(root)
    return sh("npx tsc --noEmit --listFiles --pretty -p .", root)


def _eslint_project(root: Path, *, broken: bool) -> None:
    _npm(root, "eslint@9.14.0")
    (root / "eslint.config.js").write_text(
        "module.exports = [{files: ['**/*.js'], languageOptions: {sourceType: 'commonjs', globals: "
        "{require: 'readonly', module: 'writable', console: 'readonly'}}, "
        "rules: {'no-unused-vars': 'warn', 'no-undef': 'error'}}];\n"
    )
    for i, name in enumerate(["error-reporter", "failover", "fatal-handler", "warnings"] * 40):
        unused = "  const retries = 3;\n" if broken else ""
        write(
            root, {f"src/{name}-{i:03d}.js": f"module.exports = function h{i}(x) {{\n{unused}  return x + {i};\n}};\n"}
        )
    if broken:
        write(root, {"src/api/users.js": "module.exports = async function load(id) {\n  return fetchUser(id);\n};\n"})


@case(
    "eslint_one_error",
    "eslint",
    clean=False,
    group=GROUP,
    decisive=["src/api/users.js", "'fetchUser' is not defined", "(1 error, 160 warnings)"],
)
def _eslint_bad(root: Path) -> bytes:
    _eslint_project(root, broken=True)
    return scrub(sh("npx eslint src", root), root)


@case("eslint_clean_json", "eslint --format json", clean=True, group=GROUP, decisive=[])
def _eslint_ok(root: Path) -> bytes:
    _eslint_project(root, broken=False)
    return scrub(sh("npx eslint --format json src", root), root)


def _mocha_suite(root: Path, *, broken: bool) -> None:
    _npm(root, "mocha@10.8.2")
    tests = ["const assert = require('node:assert');", "describe('cart', () => {"]
    for i in range(300):
        label = ["computes total", "retries failed uploads", "reports error responses"][i % 3]
        tests.append(f"  it('{label} {i}', () => {{ assert.strictEqual({i} + 1, {i + 1}); }});")
    if broken:
        tests.insert(
            150,
            "  it('applies coupon', () => { assert.deepStrictEqual("
            "{status: 'pending', total: 68}, {status: 'shipped', total: 68}); });",
        )
    tests.append("});")
    write(root, {"test/cart.test.js": "\n".join(tests) + "\n"})


@case(
    "mocha_fail_color",
    "mocha --color",
    clean=False,
    group=GROUP,
    decisive=["1 failing", "applies coupon", "status: 'pending'", "status: 'shipped'"],
)
def _mocha_bad(root: Path) -> bytes:
    _mocha_suite(root, broken=True)
    return scrub(sh("npx mocha --color", root), root)


@case("mocha_pass", "mocha", clean=True, group=GROUP, decisive=["300 passing"])
def _mocha_ok(root: Path) -> bytes:
    _mocha_suite(root, broken=False)
    return sh("npx mocha", root)


@case("npm_ls_tree", "npm ls --all", clean=True, group=GROUP, decisive=[])
def _npm_ls(root: Path) -> bytes:
    _npm(root, "eslint@9.14.0", "mocha@10.8.2")
    return scrub(sh("npm ls --all", root), root)


# ---------------------------------------------------------------- Java (Maven, offline)


def _maven(root: Path, deps: str) -> None:
    (root / "pom.xml").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>shop</groupId><artifactId>shop</artifactId><version>1.0</version>"
        "<properties><maven.compiler.release>17</maven.compiler.release>"
        "<project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>"
        f"<dependencies>{deps}</dependencies>"
        "<build><plugins><plugin><groupId>org.apache.maven.plugins</groupId>"
        "<artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>"
        "<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId>"
        "<version>3.13.0</version></plugin><plugin><groupId>org.apache.maven.plugins</groupId>"
        "<artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>"
        "</plugins></build></project>\n"
    )


@case(
    "maven_compile_error",
    "mvn compile",
    clean=False,
    group=GROUP,
    decisive=["Billing.java:[5,21] incompatible types: java.lang.String cannot be converted to int", "BUILD FAILURE"],
)
def _mvn_compile(root: Path) -> bytes:
    _maven(root, "")
    for i in range(150):
        write(root, {f"src/main/java/shop/Item{i}.java": f"package shop;\npublic class Item{i} {{ int v = {i}; }}\n"})
    write(
        root,
        {
            "src/main/java/shop/Billing.java": "package shop;\n\npublic class Billing {\n"
            '    int cents() {\n        int total = "100";\n        return total;\n    }\n}\n'
        },
    )
    return scrub(sh("mvn -o -B compile", root), root)


@case(
    "maven_surefire_fail",
    "mvn test",
    clean=False,
    group=GROUP,
    decisive=["appliesCoupon", "expected: <70> but was: <68>", "Tests run: 301, Failures: 1"],
)
def _mvn_test(root: Path) -> bytes:
    _maven(
        root,
        "<dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId>"
        "<version>5.10.2</version><scope>test</scope></dependency>",
    )
    write(
        root,
        {
            "src/main/java/shop/Cart.java": "package shop;\npublic class Cart {\n"
            "    public static int total(int n) { return Math.round(n * 0.85f); }\n}\n"
        },
    )
    tests = [
        "package shop;",
        "import static org.junit.jupiter.api.Assertions.assertEquals;",
        "import org.junit.jupiter.api.Test;",
        "class CartTest {",
    ]
    for i in range(300):
        tests.append(f"    @Test void total{i}() {{ assertEquals({i}, Cart.total({i}) * 0 + {i}); }}")
    tests.append("    @Test void appliesCoupon() { assertEquals(70, Cart.total(80)); }")
    tests.append("}")
    write(root, {"src/test/java/shop/CartTest.java": "\n".join(tests) + "\n"})
    return scrub(sh("mvn -o -B test", root), root)
