"""Held-out outputs (group ``unseen-113``): a hundred-and-thirteenth batch, tabular data package validation as an agent
runs it before loading data: ``frictionless`` (validate, describe, extract) and csvkit's ``csvstat`` and ``csvclean`` on
local CSV files only, offline. Every data package is generated in the scenario's folder from the business words: per
area a ``<area>_failed_payments``, ``<area>_error_codes``, ``<area>_retry_queue`` and ``<area>_exception_report``
resource, with columns such as ``error_code``, ``failure_reason``, ``last_exception`` and ``exception_class``, primary
keys and foreign keys to the area's error codes, so clean runs are full of those words.

Failing runs: ``frictionless validate`` of a 40-resource package where ``billing_failed_payments`` has an amount that is
not a number and ``refunds_retry_queue`` repeats a primary key, ``frictionless validate --json`` of 32 resources where
``webhooks_exception_report`` has a row with an extra cell and a row with a missing cell, ``frictionless validate
--yaml`` of 24 resources where ``tax_error_codes`` has a severity outside its enum and an empty required reason,
``frictionless validate`` of 36 resources with foreign keys where ``shipping_retry_queue`` points at an error code its
area does not define, ``make -k validate`` over 24 resources each validated against its own schema file where the
schema of ``orders_exception_report`` is itself invalid (an unknown field type), and ``csvclean --length-mismatch`` of
a 1,500-row export with one short row. Clean runs: ``frictionless validate`` of an 80-resource package with foreign
keys, ``frictionless validate --json`` of 20 resources, ``frictionless describe --yaml`` of 28 CSV files,
``frictionless extract`` of a 32-resource package, and ``csvstat`` of a 900-row failed-payments export. Durations
and the folder are replaced with fixed text. Labels were written with each scenario, before the engine saw the output.
Needs ``frictionless`` and ``csvkit`` from PyPI (a venv of their own).
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import VENVS, WORDS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-113"

_REQS = "frictionless==5.21.0 csvkit==2.2.0"

_KINDS = ("failed_payments", "error_codes", "retry_queue", "exception_report")

_REASONS = [
    "card declined by issuer",
    "insufficient funds",
    "gateway timeout error",
    "retry limit exceeded",
    "fraud check failed",
    "expired card",
    "3ds authentication failed",
    "duplicate transaction",
]
_EXCEPTIONS = [
    "PaymentFailedError",
    "RetryExhaustedException",
    "GatewayTimeoutError",
    "LedgerMismatchException",
    "WebhookDeliveryError",
    "InvoiceRenderException",
]

_SCRUB = (
    (r'("seconds"|seconds): \d+(\.\d+)?', r"\1: 0.01"),
    (r'("time"|time): \d+(\.\d+)?', r"\1: 0.01"),
)


def _env(root: Path) -> str:
    venv = make_venv(VENVS / "u113-tables", _REQS)
    home = root / "home"
    home.mkdir(exist_ok=True)
    return (
        f"PATH={venv / 'bin'}:$PATH HOME={home} TZ=UTC COLUMNS=200 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 "
        "PYTHONUNBUFFERED=1"
    )


def _codes(a: int) -> list[str]:
    """The error codes an area defines (its ``error_codes`` resource): 12 codes."""
    return [f"E{a + 1:02d}{k:02d}" for k in range(12)]


def _rows(kind: str, a: int, n: int) -> tuple[list[str], list[list[str]], dict[str, object]]:
    """The header, ``n`` rows and the schema of the ``kind`` resource of area number ``a``."""
    codes = _codes(a)
    if kind == "failed_payments":
        header = ["payment_id", "order_ref", "amount", "currency", "error_code", "failure_reason", "failed_at"]
        rows = [
            [
                str(1000 + r),
                f"ORD-{a:02d}{r:05d}",
                f"{(a * 37 + r * 13) % 900 + 1}.{r % 100:02d}",
                ["EUR", "USD", "GBP"][r % 3],
                codes[r % 12],
                _REASONS[(r + a) % len(_REASONS)],
                f"2026-03-{r % 28 + 1:02d}T{r % 24:02d}:15:00Z",
            ]
            for r in range(n)
        ]
        fields = [
            {"name": "payment_id", "type": "integer"},
            {"name": "order_ref", "type": "string", "constraints": {"pattern": "ORD-[0-9]{7}"}},
            {"name": "amount", "type": "number", "constraints": {"minimum": 0}},
            {"name": "currency", "type": "string", "constraints": {"enum": ["EUR", "USD", "GBP"]}},
            {"name": "error_code", "type": "string", "constraints": {"required": True}},
            {"name": "failure_reason", "type": "string", "constraints": {"required": True}},
            {"name": "failed_at", "type": "datetime"},
        ]
        return header, rows, {"fields": fields, "primaryKey": ["payment_id"]}
    if kind == "error_codes":
        header = ["error_code", "severity", "failure_reason", "retryable"]
        rows = [
            [codes[r], ["warning", "error", "fatal"][r % 3], _REASONS[r % len(_REASONS)], ["true", "false"][r % 2]]
            for r in range(12)
        ]
        fields = [
            {"name": "error_code", "type": "string", "constraints": {"pattern": "E[0-9]{4}"}},
            {"name": "severity", "type": "string", "constraints": {"enum": ["warning", "error", "fatal"]}},
            {"name": "failure_reason", "type": "string", "constraints": {"required": True}},
            {"name": "retryable", "type": "boolean"},
        ]
        return header, rows, {"fields": fields, "primaryKey": ["error_code"]}
    if kind == "retry_queue":
        header = ["retry_id", "payment_id", "error_code", "attempt", "next_retry_at", "last_exception"]
        rows = [
            [
                str(50000 + r),
                str(1000 + (r * 7) % n),
                codes[(r * 5) % 12],
                str(r % 6 + 1),
                f"2026-04-{r % 28 + 1:02d}T{r % 24:02d}:45:00Z",
                _EXCEPTIONS[(r + a) % len(_EXCEPTIONS)],
            ]
            for r in range(n)
        ]
        fields = [
            {"name": "retry_id", "type": "integer"},
            {"name": "payment_id", "type": "integer"},
            {"name": "error_code", "type": "string"},
            {"name": "attempt", "type": "integer", "constraints": {"minimum": 1, "maximum": 8}},
            {"name": "next_retry_at", "type": "datetime"},
            {"name": "last_exception", "type": "string"},
        ]
        return header, rows, {"fields": fields, "primaryKey": ["retry_id"]}
    header = ["exception_id", "service", "exception_class", "error_count", "first_seen", "last_seen"]
    rows = [
        [
            str(900000 + r),
            f"{WORDS[a % len(WORDS)]}-worker",
            _EXCEPTIONS[(r * 3 + a) % len(_EXCEPTIONS)],
            str((r * 31 + a) % 400),
            f"2026-02-{r % 28 + 1:02d}",
            f"2026-03-{r % 28 + 1:02d}",
        ]
        for r in range(n)
    ]
    fields = [
        {"name": "exception_id", "type": "integer"},
        {"name": "service", "type": "string"},
        {"name": "exception_class", "type": "string", "constraints": {"required": True}},
        {"name": "error_count", "type": "integer", "constraints": {"minimum": 0}},
        {"name": "first_seen", "type": "date"},
        {"name": "last_seen", "type": "date"},
    ]
    return header, rows, {"fields": fields, "primaryKey": ["exception_id"]}


def _package(
    root: Path,
    areas: list[str],
    *,
    rows: int = 40,
    faults: dict[str, list[tuple[int, int, str | None]]] | None = None,
    foreign: bool = False,
    schema_files: bool = False,
) -> list[str]:
    """``datapackage.json`` with the four resources of every area in ``areas`` under ``data/``; ``faults`` maps a
    resource to (row, column, value) edits: a value replaces the cell, ``None`` drops the row's last cell, a column
    past the end appends an extra cell. ``foreign`` ties retry queues to their area's error codes; ``schema_files``
    writes each schema to ``schemas/<name>.schema.json``. The resource names, in order."""
    faults = faults or {}
    resources, names = [], []
    for area in areas:
        a = WORDS.index(area)
        for kind in _KINDS:
            name = f"{area}_{kind}"
            header, body, schema = _rows(kind, a, rows)
            for r, col, value in faults.get(name, []):
                if value is None:
                    body[r] = body[r][:-1]
                elif col >= len(body[r]):
                    body[r] = [*body[r], value]
                else:
                    body[r][col] = value
            text = "\n".join(",".join(f'"{c}"' if "," in c else c for c in line) for line in [header, *body])
            write(root, {f"data/{name}.csv": text + "\n"})
            if foreign and kind == "retry_queue":
                schema["foreignKeys"] = [
                    {"fields": "error_code", "reference": {"resource": f"{area}_error_codes", "fields": "error_code"}}
                ]
            entry: dict[str, object] = {"name": name, "path": f"data/{name}.csv"}
            if schema_files:
                write(root, {f"schemas/{name}.schema.json": json.dumps(schema, indent=2) + "\n"})
                entry["schema"] = f"schemas/{name}.schema.json"
            else:
                entry["schema"] = schema
            resources.append(entry)
            names.append(name)
    write(root, {"datapackage.json": json.dumps({"name": "payments-errors", "resources": resources}, indent=2)})
    return names


def _run(root: Path, cmd: str) -> bytes:
    return substitute(scrub(sh(f"{_env(root)} {cmd}", root), root), *_SCRUB)


# ---------------------------------------------------------------- failing runs


@case(
    "u113_validate_package_type_error_duplicate_key",
    "frictionless validate datapackage.json (40 resources)",
    clean=False,
    group=GROUP,
    decisive=[
        'Type error in the cell "12,40" in row "19" and field "amount" at position "3"',
        'Row at position "33" violates the primary key: the same as in the row at position 32',
        "[exit status 1]",
    ],
)
def _validate_two_bad(root: Path) -> bytes:
    areas = WORDS[:10]
    _package(
        root,
        areas,
        faults={"billing_failed_payments": [(17, 2, "12,40")], "refunds_retry_queue": [(31, 0, "50030")]},
    )
    return _run(root, "frictionless validate datapackage.json")


@case(
    "u113_validate_json_extra_and_missing_cell",
    "frictionless validate --json datapackage.json (32 resources)",
    clean=False,
    group=GROUP,
    decisive=[
        '"place": "data/webhooks_exception_report.csv"',
        '"message": "Row at position \\"24\\" has an extra value in field at position \\"7\\""',
        '"message": "Row at position \\"31\\" has a missing cell in field \\"last_seen\\" at position \\"6\\""',
        "[exit status 1]",
    ],
)
def _validate_json(root: Path) -> bytes:
    areas = ["cart", "tax", "session", "shipping", "search", "webhooks", "audit", "export"]
    _package(root, areas, faults={"webhooks_exception_report": [(22, 6, "retry"), (29, 5, None)]})
    return _run(root, "frictionless validate --json datapackage.json")


@case(
    "u113_validate_yaml_enum_required",
    "frictionless validate --yaml datapackage.json (24 resources)",
    clean=False,
    group=GROUP,
    decisive=[
        "place: data/tax_error_codes.csv",
        'message: \'The cell "critical" in row at position "9" and field "severity"',
        'message: \'The cell "" in row at position "11" and field "failure_reason"',
    ],
)
def _validate_yaml(root: Path) -> bytes:
    areas = ["orders", "invoice", "tax", "ledger", "catalog", "pricing"]
    _package(root, areas, rows=25, faults={"tax_error_codes": [(7, 1, "critical"), (9, 2, "")]})
    return _run(root, "frictionless validate --yaml datapackage.json")


@case(
    "u113_validate_foreign_key_unknown_code",
    "frictionless validate datapackage.json (36 resources, foreign keys)",
    clean=False,
    group=GROUP,
    decisive=[
        "data/shipping_retry_queue.csv",
        'for "error_code": values "E9999" not found in the lookup table "shipping_error_codes"',
        "[exit status 1]",
    ],
)
def _validate_foreign(root: Path) -> bytes:
    areas = ["errors", "exceptions", "retry", "auth", "session", "invoice", "ledger", "shipping", "catalog"]
    _package(root, areas, rows=60, foreign=True, faults={"shipping_retry_queue": [(41, 2, "E9999")]})
    return _run(root, "frictionless validate datapackage.json")


@case(
    "u113_make_validate_invalid_schema_file",
    "make -k validate (frictionless validate --schema, 24 resources)",
    clean=False,
    group=GROUP,
    decisive=[
        'Field is not valid: field type "long" is not supported',
        "validate-orders_exception_report] Error 1",
        "Target 'validate' not remade because of errors.",
    ],
)
def _make_invalid_schema(root: Path) -> bytes:
    names = _package(root, ["billing", "orders", "refunds", "retry", "errors", "exceptions"], schema_files=True)
    bad = root / "schemas" / "orders_exception_report.schema.json"
    schema = json.loads(bad.read_text())
    schema["fields"][3]["type"] = "long"
    bad.write_text(json.dumps(schema, indent=2) + "\n")
    targets = " ".join(f"validate-{n}" for n in names)
    write(
        root,
        {
            "Makefile": f"""
            RESOURCES := {" ".join(names)}
            .PHONY: validate
            validate: {targets}
            \t@echo "all $(words $(RESOURCES)) resources valid"
            validate-%:
            \t@echo "== validating data/$*.csv against schemas/$*.schema.json"
            \tfrictionless validate --schema schemas/$*.schema.json data/$*.csv
            """
        },
    )
    return _run(root, "make -k validate")


@case(
    "u113_csvclean_length_mismatch",
    "csvclean --length-mismatch (1,500-row export)",
    clean=False,
    group=GROUP,
    decisive=['"Expected 6 columns, found 5 columns"', "[exit status 1]"],
)
def _csvclean(root: Path) -> bytes:
    _package(root, ["retry"], rows=1500, faults={"retry_retry_queue": [(811, 5, None)]})
    return _run(root, "csvclean --length-mismatch data/retry_retry_queue.csv 2>&1")


# ---------------------------------------------------------------- clean runs


@case(
    "u113_validate_package_80_resources_clean",
    "frictionless validate datapackage.json (80 resources, foreign keys)",
    clean=True,
    group=GROUP,
    decisive=["data/export_exception_report.csv"],
)
def _validate_clean(root: Path) -> bytes:
    _package(root, WORDS, rows=30, foreign=True)
    return _run(root, "frictionless validate datapackage.json")


@case(
    "u113_validate_json_clean",
    "frictionless validate --json datapackage.json (20 resources)",
    clean=True,
    group=GROUP,
    decisive=['"tasks": 20,'],
)
def _validate_json_clean(root: Path) -> bytes:
    _package(root, ["errors", "exceptions", "retry", "refunds", "billing"], foreign=True)
    return _run(root, "frictionless validate --json datapackage.json")


@case(
    "u113_describe_yaml_clean",
    "frictionless describe --yaml data/*.csv (28 files)",
    clean=True,
    group=GROUP,
    decisive=["path: data/webhooks_retry_queue.csv"],
)
def _describe(root: Path) -> bytes:
    _package(root, ["errors", "exceptions", "retry", "coupons", "webhooks", "billing", "audit"])
    (root / "datapackage.json").unlink()
    return _run(root, "frictionless describe --yaml data/*.csv")


@case(
    "u113_extract_package_clean",
    "frictionless extract datapackage.json (32 resources)",
    clean=True,
    group=GROUP,
    decisive=["data/exceptions_exception_report.csv"],
)
def _extract(root: Path) -> bytes:
    _package(root, ["errors", "exceptions", "retry", "refunds", "session", "auth", "audit", "export"])
    return _run(root, "frictionless extract datapackage.json")


@case(
    "u113_csvstat_failed_payments_clean",
    "csvstat --freq-count 30 data/errors_failed_payments.csv (900 rows)",
    clean=True,
    group=GROUP,
    decisive=["Row count: 900"],
)
def _csvstat(root: Path) -> bytes:
    _package(root, ["errors"], rows=900)
    return _run(root, "csvstat --freq-count 30 data/errors_failed_payments.csv")
