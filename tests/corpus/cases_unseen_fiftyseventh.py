"""Held-out outputs (group ``unseen-57``): a fifty-seventh batch, database schema migrations through ORMs and migration
tools as an agent runs them on a service generated in the scenario, all on SQLite files in the scenario's folder.

Failing runs: ``alembic upgrade head`` over 48 revisions with SQLAlchemy's engine logging at INFO where revision 27
creates an index on a misspelled ``refunds`` column (the ``OperationalError`` and the revision's file inside a long
traceback, then ``alembic history --indicate-current``), ``alembic history --verbose`` then ``alembic upgrade head``
on a tree with two heads, ``alembic upgrade head`` then ``alembic check`` that finds a model column no revision adds,
``npx knex migrate:latest`` with ``DEBUG=knex:query`` over 40 migrations where one alters a table that does not exist,
``npx sequelize-cli db:migrate`` of 60 migrations with SQL logging where one adds an index to a missing column, and a
Python script applying 200 raw ``.sql`` files (each in its own transaction, every statement echoed) where file 137
fails and the others go on. Clean runs named after errors and failures: ``alembic upgrade head``, ``alembic revision
--autogenerate`` of tables ``error_events``, ``failed_jobs`` and ``retry_queue`` and ``alembic check``, ``alembic
upgrade head --sql`` of an ``exceptions`` service, ``npx knex migrate:latest`` and ``migrate:status`` of 72 migrations
on ``error_reports``, ``failed_jobs`` and ``retry_queue``, ``npx sequelize-cli db:migrate`` and ``db:migrate:status``
of 72 migrations on ``exception_reports`` and ``retry_attempts``, and SQLAlchemy ``create_all`` with ``echo=True`` of
91 tables with three ``failed_jobs`` rows whose exception texts the echo logs. Labels were written with each scenario,
before the engine saw the output. Needs alembic 1.20.1 and SQLAlchemy 2.1.9 from PyPI, installed once into a virtual
environment of their own under ``/tmp/offloader-corpus-venvs``, and knex 3.1.0, sequelize 6.37.7, sequelize-cli 6.6.3
and sqlite3 5.1.7 from the npm registry (with Node.js 20 and npm; sqlite3 built from source against
``/usr/include/node``), installed once into ``/tmp/u57-node``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from _harness import PY, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-57"

_REQS = "alembic==1.20.1 sqlalchemy==2.1.9"
#: The Python tools' environment, made once and kept between runs.
_VENV = VENVS / "u57-alembic"
_NPM_REQS = "knex@3.1.0 sequelize@6.37.7 sequelize-cli@6.6.3 sqlite3@5.1.7"
#: The JavaScript tools, installed once (sqlite3 compiles its native module here).
_NODE = Path("/tmp/u57-node")


def _py_env(root: Path) -> str:
    """The environment prefix that runs alembic and SQLAlchemy (made once) on the project in ``root``."""
    make_venv(_VENV, _REQS)
    return f"PATH={_VENV}/bin:$PATH HOME={root / 'home'} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 TZ=UTC"


def _node_env(root: Path) -> str:
    """The environment prefix that runs knex and sequelize-cli (installed once) in ``root``."""
    if not (_NODE / ".complete").exists():
        _NODE.mkdir(parents=True, exist_ok=True)
        (_NODE / "package.json").write_text('{"name": "u57-tools", "private": true}\n')
        sh(
            f"npm install --no-audit --no-fund --cache /tmp/u57-npm-cache {_NPM_REQS} && touch .complete",
            _NODE,
            timeout=1200,
        )
    (root / "node_modules").symlink_to(_NODE / "node_modules")
    return f"HOME={root / 'home'} TZ=UTC NODE_OPTIONS=--no-deprecation npm_config_update_notifier=false"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, dates, timings."""
    return substitute(
        scrub(out, root).replace(str(_NODE).encode(), b"/tmp/work"),
        (r"\[generated in \d+\.\d+s\]", "[generated in 0.00010s]"),
        (r"\[cached since \d+\.\d+s ago\]", "[cached since 0.001s ago]"),
        (r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ", "2026-01-01 00:00:00,000 "),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", "2026-01-01T00:00:00.000Z"),
        (r"(migrated|reverted) \(\d+\.\d+s\)", r"\1 (0.010s)"),
        (r" \+\d+m?s$", " +1ms"),
        (r"\[no key \d+\.\d+s\]", "[no key 0.00007s]"),
    )


# ---------------------------------------------------------------- alembic

_ALEMBIC_INI = """
    [alembic]
    script_location = %(here)s/migrations
    prepend_sys_path = .
    sqlalchemy.url = sqlite:///%(here)s/{db}

    [loggers]
    keys = root,sqlalchemy,alembic

    [handlers]
    keys = console

    [formatters]
    keys = generic

    [logger_root]
    level = WARNING
    handlers = console
    qualname =

    [logger_sqlalchemy]
    level = {sa_level}
    handlers =
    qualname = sqlalchemy.engine

    [logger_alembic]
    level = INFO
    handlers =
    qualname = alembic

    [handler_console]
    class = StreamHandler
    args = (sys.stderr,)
    level = NOTSET
    formatter = generic

    [formatter_generic]
    format = %(levelname)-5.5s [%(name)s] %(message)s
"""

_ENV_PY = """
    from logging.config import fileConfig

    from alembic import context
    from sqlalchemy import engine_from_config, pool

    from {package}.models import metadata

    config = context.config
    if config.config_file_name is not None:
        fileConfig(config.config_file_name)

    target_metadata = metadata


    def run_migrations_offline() -> None:
        context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                          literal_binds=True, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


    def run_migrations_online() -> None:
        connectable = engine_from_config(config.get_section(config.config_ini_section, {{}}), prefix="sqlalchemy.",
                                         poolclass=pool.NullPool)
        with connectable.connect() as connection:
            context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
            with context.begin_transaction():
                context.run_migrations()


    if context.is_offline_mode():
        run_migrations_offline()
    else:
        run_migrations_online()
"""

_SCRIPT_MAKO = '''
    """${message}

    Revision ID: ${up_revision}
    Revises: ${down_revision | comma,n}
    Create Date: 2026-01-01 00:00:00

    """
    from alembic import op
    import sqlalchemy as sa
    ${imports if imports else ""}

    revision = ${repr(up_revision)}
    down_revision = ${repr(down_revision)}
    branch_labels = ${repr(branch_labels)}
    depends_on = ${repr(depends_on)}


    def upgrade() -> None:
        ${upgrades if upgrades else "pass"}


    def downgrade() -> None:
        ${downgrades if downgrades else "pass"}
'''

_AREAS = [
    "orders", "billing", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "catalog", "pricing", "coupons",
    "webhooks", "audit", "export", "session", "search",
]  # fmt: skip


def _rev(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:12]


def _steps(count: int, areas: list[str], *, broken: int = -1) -> list[tuple[str, str, str]]:
    """``count`` migration steps (message, upgrade body, downgrade body) over ``areas``; step ``broken`` creates an
    index on a misspelled column of ``refunds``."""
    steps: list[tuple[str, str, str]] = []
    for i in range(count):
        area = areas[i % len(areas)]
        kind = (i // len(areas)) % 3
        if i == broken:
            steps.append(
                (
                    "index refunds by reason code",
                    'op.create_index("ix_refunds_reason_code", "refunds", ["reason_cde"])',
                    'op.drop_index("ix_refunds_reason_code", table_name="refunds")',
                )
            )
        elif kind == 0:
            body = (
                f'op.create_table("{area}",\n'
                '        sa.Column("id", sa.Integer(), primary_key=True),\n'
                '        sa.Column("name", sa.String(120), nullable=False),\n'
                '        sa.Column("amount_cents", sa.Integer(), nullable=False, server_default="0"),\n'
                '        sa.Column("reason_code", sa.String(40)),\n'
                '        sa.Column("created_at", sa.DateTime(), nullable=False, server_default=sa.func.now()),\n'
                "    )"
            )
            steps.append((f"create {area} table", body, f'op.drop_table("{area}")'))
        elif kind == 1:
            body = (
                f'with op.batch_alter_table("{area}") as batch:\n'
                f'        batch.add_column(sa.Column("{area}_status", sa.String(20), server_default="open"))'
            )
            down = f'with op.batch_alter_table("{area}") as batch:\n        batch.drop_column("{area}_status")'
            steps.append((f"add {area}.{area}_status", body, down))
        else:
            body = f'op.create_index("ix_{area}_created_at", "{area}", ["created_at"])'
            steps.append((f"index {area} by created_at", body, f'op.drop_index("ix_{area}_created_at")'))
    return steps


def _revision_file(rev: str, down: str | None, msg: str, up: str, dn: str, n: int) -> str:
    return (
        f'"""{msg}\n\nRevision ID: {rev}\nRevises: {down or ""}\n'
        f'Create Date: 2026-01-{1 + n % 28:02d} 09:00:00\n\n"""\n'
        "from alembic import op\nimport sqlalchemy as sa\n\n"
        f"revision = {rev!r}\ndown_revision = {down!r}\nbranch_labels = None\ndepends_on = None\n\n\n"
        f"def upgrade() -> None:\n    {up}\n\n\ndef downgrade() -> None:\n    {dn}\n"
    )


def _alembic_project(
    root: Path, package: str, steps: list[tuple[str, str, str]], *, sa_level: str = "WARN", models: str = ""
) -> list[str]:
    """An alembic project for ``package`` with one revision per step in a line; the revision ids."""
    write(
        root,
        {
            "alembic.ini": _ALEMBIC_INI.format(db=f"{package}.db", sa_level=sa_level),
            "migrations/env.py": _ENV_PY.format(package=package),
            "migrations/script.py.mako": _SCRIPT_MAKO,
            f"{package}/__init__.py": "",
            f"{package}/models.py": models or "from sqlalchemy import MetaData\n\nmetadata = MetaData()\n",
        },
    )
    (root / "migrations/versions").mkdir(parents=True, exist_ok=True)
    (root / "home").mkdir(exist_ok=True)
    revs: list[str] = []
    down = None
    for n, (msg, up, dn) in enumerate(steps):
        rev = _rev(f"{package}-{n}-{msg}")
        slug = msg.replace(" ", "_").replace(".", "_")
        path = root / "migrations/versions" / f"{rev}_{slug}.py"
        path.write_text(_revision_file(rev, down, msg, up, dn, n))
        revs.append(rev)
        down = rev
    return revs


@case(
    "u57_alembic_upgrade_index_fails",
    "alembic",
    clean=False,
    group=GROUP,
    decisive=[
        "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such column: reason_cde",
        'bddc4068361b_index_refunds_by_reason_code.py", line 18, in upgrade',
        "Running upgrade e9c562ccbad3 -> bddc4068361b, index refunds by reason code",
    ],
)
def _alembic_upgrade_fails(root: Path) -> bytes:
    steps = _steps(48, _AREAS, broken=26)
    _alembic_project(root, "payments_service", steps, sa_level="INFO")
    env = _py_env(root)
    out = sh(f"{env} alembic upgrade head; {env} alembic history --indicate-current", root)
    return _settle(out, root)


def _models(areas: list[str], extra: str = "") -> str:
    """SQLAlchemy tables matching what ``_steps`` builds for ``areas`` (three steps each), then ``extra``."""
    tables = "".join(
        f'\n{area} = Table(\n    "{area}",\n    metadata,\n'
        '    Column("id", Integer, primary_key=True),\n'
        '    Column("name", String(120), nullable=False),\n'
        '    Column("amount_cents", Integer, nullable=False, server_default="0"),\n'
        '    Column("reason_code", String(40)),\n'
        '    Column("created_at", DateTime, nullable=False, server_default=func.now()),\n'
        f'    Column("{area}_status", String(20), server_default="open"),\n'
        f'    Index("ix_{area}_created_at", "created_at"),\n)\n'
        for area in areas
    )
    return (
        "from sqlalchemy import Column, DateTime, ForeignKey, Index, Integer, MetaData, String, Table, Text, func\n\n"
        f"metadata = MetaData()\n{tables}{extra}"
    )


@case(
    "u57_alembic_multiple_heads",
    "alembic",
    clean=False,
    group=GROUP,
    decisive=[
        "Multiple head revisions are present for given argument 'head'",
        "Rev: 9a41d2e07c15 (head)",
        "Rev: 3be80f6c2d94 (head)",
    ],
)
def _alembic_multiple_heads(root: Path) -> bytes:
    steps = _steps(45, _AREAS)
    revs = _alembic_project(root, "checkout_service", steps)
    base = revs[-1]
    branches = [
        ("9a41d2e07c15", "add ledger posted_at", 'op.add_column("ledger", sa.Column("posted_at", sa.DateTime()))'),
        ("3be80f6c2d94", "add cart abandoned_at", 'op.add_column("cart", sa.Column("abandoned_at", sa.DateTime()))'),
    ]
    for n, (rev, msg, up) in enumerate(branches):
        slug = msg.replace(" ", "_")
        (root / "migrations/versions" / f"{rev}_{slug}.py").write_text(
            _revision_file(rev, base, msg, up, "pass", 40 + n)
        )
    env = _py_env(root)
    return _settle(sh(f"{env} alembic history --verbose; {env} alembic upgrade head", root), root)


_DRIFT_AREAS = ["error_events", "failed_jobs", "retry_queue", "orders", "billing", "invoice", "refunds", "ledger"]


@case(
    "u57_alembic_check_drift",
    "alembic",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED: New upgrade operations detected:",
        "Detected added column 'failed_jobs.retry_after'",
    ],
)
def _alembic_check_drift(root: Path) -> bytes:
    steps = _steps(3 * len(_DRIFT_AREAS), _DRIFT_AREAS)
    extra = 'failed_jobs.append_column(Column("retry_after", DateTime, nullable=True))\n'
    _alembic_project(root, "jobs_service", steps, sa_level="INFO", models=_models(_DRIFT_AREAS, extra))
    env = _py_env(root)
    return _settle(sh(f"{env} alembic upgrade head && {env} alembic check", root), root)


_NEW_TABLES = """
error_events = Table(
    "error_events",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("source", String(80), nullable=False),
    Column("message", Text, nullable=False),
    Column("created_at", DateTime, nullable=False, server_default=func.now()),
    Index("ix_error_events_source", "source"),
)

failed_jobs = Table(
    "failed_jobs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("queue", String(80), nullable=False),
    Column("exception", Text),
    Column("failed_at", DateTime, nullable=False, server_default=func.now()),
)

retry_queue = Table(
    "retry_queue",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("failed_job_id", Integer, ForeignKey("failed_jobs.id"), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("next_retry_at", DateTime),
)
"""


@case(
    "u57_alembic_autogenerate_check_clean",
    "alembic",
    clean=True,
    group=GROUP,
    decisive=["No new upgrade operations detected.", "Running upgrade c391098a8c10 -> e7a1c0de0049"],
)
def _alembic_autogenerate_clean(root: Path) -> bytes:
    steps = _steps(3 * len(_AREAS), _AREAS)
    _alembic_project(root, "errors_service", steps, sa_level="INFO", models=_models(_AREAS, _NEW_TABLES))
    env = _py_env(root)
    cmd = (
        f"{env} alembic upgrade head && {env} alembic revision --autogenerate --rev-id e7a1c0de0049"
        f' -m "add error_events failed_jobs retry_queue" && {env} alembic upgrade head && {env} alembic check'
    )
    return _settle(sh(cmd, root), root)


@case(
    "u57_alembic_offline_sql_clean",
    "alembic",
    clean=True,
    group=GROUP,
    decisive=["UPDATE alembic_version SET version_num='00fdd40827f1'"],
)
def _alembic_offline_sql(root: Path) -> bytes:
    areas = ["exceptions_log", "retry_attempts", "failed_webhooks", *_AREAS[:9]]
    steps = _steps(3 * len(areas), areas)
    _alembic_project(root, "exceptions_service", steps)
    env = _py_env(root)
    return _settle(sh(f"{env} alembic upgrade head --sql", root), root)


# ---------------------------------------------------------------- knex

_KNEXFILE = """
    module.exports = {
      development: {
        client: 'sqlite3',
        connection: { filename: './data/dev.sqlite3' },
        useNullAsDefault: true,
        migrations: { directory: './migrations', tableName: 'knex_migrations' },
      },
    };
"""


def _knex_migration(kind: int, table: str) -> tuple[str, str, str]:
    """(slug, up, down) of one knex migration on ``table``."""
    if kind == 0:
        up = (
            f"  return knex.schema.createTable('{table}', (t) => {{\n    t.increments('id');\n"
            "    t.string('name', 120).notNullable();\n    t.integer('amount_cents').notNullable().defaultTo(0);\n"
            "    t.string('reason_code', 40);\n    t.timestamps(true, true);\n  });"
        )
        return f"create_{table}", up, f"  return knex.schema.dropTable('{table}');"
    if kind == 1:
        up = (
            f"  return knex.schema.alterTable('{table}', (t) => {{\n"
            "    t.string('status', 20).defaultTo('open');\n  });"
        )
        down = f"  return knex.schema.alterTable('{table}', (t) => {{\n    t.dropColumn('status');\n  }});"
        return f"add_status_to_{table}", up, down
    up = (
        f"  return knex.schema.alterTable('{table}', (t) => {{\n"
        f"    t.index(['created_at'], 'ix_{table}_created_at');\n  }});"
    )
    down = (
        f"  return knex.schema.alterTable('{table}', (t) => {{\n"
        f"    t.dropIndex(['created_at'], 'ix_{table}_created_at');\n  }});"
    )
    return f"index_{table}_created_at", up, down


def _knex_project(root: Path, tables: list[str], count: int, broken: dict[int, tuple[str, str, str]]) -> None:
    write(root, {"knexfile.js": _KNEXFILE, "package.json": '{"name": "storefront-api", "private": true}\n'})
    (root / "data").mkdir()
    (root / "home").mkdir()
    for i in range(count):
        slug, up, down = broken.get(i) or _knex_migration((i // len(tables)) % 3, tables[i % len(tables)])
        stamp = f"20260{1 + i // 20}{1 + i % 20:02d}0930{i % 60:02d}"
        write(
            root,
            {
                f"migrations/{stamp}_{slug}.js": (
                    f"/** @param {{import('knex').Knex}} knex */\nexports.up = function (knex) {{\n{up}\n}};\n\n"
                    f"exports.down = function (knex) {{\n{down}\n}};\n"
                )
            },
        )


_REFUND_LINES = (
    "add_reason_to_refund_lines",
    "  return knex.schema.alterTable('refund_lines', (t) => {\n    t.string('reason', 200);\n  });",
    "  return knex.schema.alterTable('refund_lines', (t) => {\n    t.dropColumn('reason');\n  });",
)


@case(
    "u57_knex_migrate_latest_fails",
    "knex",
    clean=False,
    group=GROUP,
    decisive=[
        'migration file "20260204093023_add_reason_to_refund_lines.js" failed',
        "migration failed with error: alter table `refund_lines` add column `reason` varchar(200) - SQLITE_ERROR",
    ],
)
def _knex_fails(root: Path) -> bytes:
    tables = ["orders", "order_items", "cart", "refunds", "refund_items", "invoice", "ledger", "shipping", "tax_rates",
              "coupons", "pricing", "catalog", "webhooks", "audit_log"]  # fmt: skip
    _knex_project(root, tables, 40, {23: _REFUND_LINES})
    env = _node_env(root)
    out = sh(f"{env} DEBUG=knex:query,knex:tx npx knex migrate:latest", root)
    return _settle(out, root)


@case(
    "u57_knex_migrate_status_clean",
    "knex",
    clean=True,
    group=GROUP,
    decisive=["Batch 1 run: 72 migrations", "No Pending Migration files Found."],
)
def _knex_clean(root: Path) -> bytes:
    tables = ["error_reports", "failed_jobs", "retry_queue", "exceptions", "orders", "billing", "ledger", "audit",
              "webhooks", "session", "invoice", "refunds", "shipping", "tax", "export", "search", "error_digests",
              "failed_payments", "retry_schedules", "exception_notes", "cart", "coupons", "pricing",
              "catalog"]  # fmt: skip
    _knex_project(root, tables, 72, {})
    env = _node_env(root)
    cmd = f"{env} npx knex migrate:latest --verbose && {env} npx knex migrate:status"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- sequelize-cli


def _sequelize_migration(kind: int, table: str) -> tuple[str, str, str]:
    """(slug, up, down) of one sequelize-cli migration on ``table``."""
    if kind == 0:
        up = (
            f"    await queryInterface.createTable('{table}', {{\n"
            "      id: { allowNull: false, autoIncrement: true, primaryKey: true, type: Sequelize.INTEGER },\n"
            "      name: { allowNull: false, type: Sequelize.STRING(120) },\n"
            "      amountCents: { allowNull: false, defaultValue: 0, type: Sequelize.INTEGER },\n"
            "      reasonCode: { type: Sequelize.STRING(40) },\n"
            "      createdAt: { allowNull: false, type: Sequelize.DATE },\n"
            "      updatedAt: { allowNull: false, type: Sequelize.DATE },\n    });"
        )
        return f"create-{table.replace('_', '-')}", up, f"    await queryInterface.dropTable('{table}');"
    if kind == 1:
        up = (
            f"    await queryInterface.addColumn('{table}', 'status', "
            "{ type: Sequelize.STRING(20), defaultValue: 'open' });"
        )
        return (
            f"add-status-to-{table.replace('_', '-')}",
            up,
            f"    await queryInterface.removeColumn('{table}', 'status');",
        )
    up = f"    await queryInterface.addIndex('{table}', ['createdAt'], {{ name: 'ix_{table}_created_at' }});"
    down = f"    await queryInterface.removeIndex('{table}', 'ix_{table}_created_at');"
    return f"index-{table.replace('_', '-')}-created-at", up, down


def _sequelize_project(
    root: Path, tables: list[str], count: int, broken: dict[int, tuple[str, str, str]], *, logging: bool
) -> None:
    write(
        root,
        {
            ".sequelizerc": (
                "const path = require('path');\n\nmodule.exports = { config: path.resolve('config', 'config.js') };\n"
            ),
            "config/config.js": (
                "module.exports = {\n  development: {\n    dialect: 'sqlite',\n    storage: 'data/dev.sqlite',\n"
                f"    logging: {'console.log' if logging else 'false'},\n  }},\n}};\n"
            ),
            "package.json": '{"name": "billing-api", "private": true}\n',
        },
    )
    (root / "data").mkdir()
    (root / "home").mkdir()
    for i in range(count):
        slug, up, down = broken.get(i) or _sequelize_migration((i // len(tables)) % 3, tables[i % len(tables)])
        stamp = f"20260{1 + i // 20}{1 + i % 20:02d}1015{i % 60:02d}"
        write(
            root,
            {
                f"migrations/{stamp}-{slug}.js": (
                    "'use strict';\n\n/** @type {import('sequelize-cli').Migration} */\nmodule.exports = {\n"
                    f"  async up(queryInterface, Sequelize) {{\n{up}\n  }},\n\n"
                    f"  async down(queryInterface, Sequelize) {{\n{down}\n  }},\n}};\n"
                )
            },
        )


@case(
    "u57_sequelize_migrate_fails",
    "sequelize-cli",
    clean=False,
    group=GROUP,
    decisive=[
        "== 20260306101545-index-refunds-by-refund-reason: migrating",
        "ERROR: SQLITE_ERROR: no such column: refundReason",
    ],
)
def _sequelize_fails(root: Path) -> bytes:
    tables = ["orders", "order_items", "customers", "refunds", "invoices", "payments", "ledger_entries",
              "shipments", "tax_rates", "coupons", "price_lists", "products", "carts", "cart_items", "addresses",
              "webhooks", "audit_events", "exports", "search_terms", "sessions"]  # fmt: skip
    broken = (
        "index-refunds-by-refund-reason",
        "    await queryInterface.addIndex('refunds', ['refundReason'], { name: 'ix_refunds_refund_reason' });",
        "    await queryInterface.removeIndex('refunds', 'ix_refunds_refund_reason');",
    )
    _sequelize_project(root, tables, 60, {45: broken}, logging=True)
    env = _node_env(root)
    return _settle(sh(f"{env} npx sequelize-cli db:migrate", root), root)


@case(
    "u57_sequelize_migrate_status_clean",
    "sequelize-cli",
    clean=True,
    group=GROUP,
    decisive=["== 20260412101511-index-customers-created-at: migrated"],
)
def _sequelize_clean(root: Path) -> bytes:
    tables = ["error_logs", "failed_jobs", "retry_attempts", "exception_reports", "orders", "invoices", "refunds",
              "ledger_entries", "webhook_deliveries", "audit_events", "sessions", "coupons", "failed_payments",
              "error_digests", "retry_schedules", "exception_notes", "carts", "shipments", "tax_rates", "catalog",
              "pricing", "exports", "search_terms", "customers"]  # fmt: skip
    _sequelize_project(root, tables, 72, {}, logging=False)
    env = _node_env(root)
    return _settle(sh(f"{env} npx sequelize-cli db:migrate && {env} npx sequelize-cli db:migrate:status", root), root)


# ---------------------------------------------------------------- raw .sql files and SQLAlchemy's echo

_APPLY_SQL = '''
    """Apply every sql/NNN_*.sql file not yet recorded in schema_migrations, each in its own transaction."""

    import sqlite3
    import sys
    from pathlib import Path

    db = sqlite3.connect("data/app.db", isolation_level=None)
    db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (filename TEXT PRIMARY KEY, applied_at TEXT)")
    files = sorted(Path("sql").glob("*.sql"))
    done = {row[0] for row in db.execute("SELECT filename FROM schema_migrations")}
    print(f"found {len(files)} migration files in sql/, {len(done)} already applied")
    applied, failed = 0, []
    for n, path in enumerate(files, 1):
        if path.name in done:
            continue
        statements = [s.strip() for s in path.read_text().split(";") if s.strip()]
        print(f"[{n:3d}/{len(files)}] {path.name} ({len(statements)} statements)")
        db.execute("BEGIN")
        try:
            for k, statement in enumerate(statements, 1):
                first = next(line for line in statement.splitlines() if not line.startswith("--"))
                print(f"    {k:2d}> {first[:110]}")
                db.execute(statement)
            db.execute("INSERT INTO schema_migrations VALUES (?, '2026-01-01 00:00:00')", (path.name,))
            db.execute("COMMIT")
            applied += 1
        except sqlite3.Error as exc:
            db.execute("ROLLBACK")
            failed.append(path.name)
            print(f"    FAILED {path.name} at statement {k}: {type(exc).__name__}: {exc}")
            print("    rolled back this file; continuing with the next one")
    print(f"done: {applied} applied, {len(failed)} failed" + (f" ({', '.join(failed)})" if failed else ""))
    sys.exit(1 if failed else 0)
'''


def _sql_file(n: int, area: str, created: list[str]) -> tuple[str, str]:
    """The name and text of migration ``n``: a new table for ``area``, or a change to one made before."""
    kind = ["storage", "columns", "seed", "views", "indexes"][n % 5] if created else "storage"
    return f"{n:03d}_{area}_{kind}.sql", _sql_text(n, area, created)


def _sql_text(n: int, area: str, created: list[str]) -> str:
    kind = n % 5
    if kind == 0 or not created:
        table = f"{area}_{n:03d}"
        created.append(table)
        return (
            f"-- {n:03d}: {area} storage\nCREATE TABLE {table} (\n    id INTEGER PRIMARY KEY,\n"
            "    reference TEXT NOT NULL UNIQUE,\n    amount_cents INTEGER NOT NULL DEFAULT 0,\n"
            "    reason_code TEXT,\n    created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP\n);\n"
            f"CREATE INDEX ix_{table}_created_at ON {table} (created_at);\n"
        )
    table = created[n % len(created)]
    if kind == 1:
        return (
            f"ALTER TABLE {table} ADD COLUMN note_{n:03d} TEXT;\nALTER TABLE {table} ADD COLUMN flag_{n:03d} INTEGER;\n"
        )
    if kind == 2:
        rows = ",\n".join(f"    ('{area.upper()}-{n:03d}-{k:02d}', {k * 125}, 'seed')" for k in range(6))
        return f"INSERT INTO {table} (reference, amount_cents, reason_code) VALUES\n{rows};\n"
    if kind == 3:
        return (
            f"CREATE VIEW v_{table}_{n:03d} AS\n"
            f"    SELECT reference, amount_cents FROM {table} WHERE amount_cents > 0;\n"
            f"UPDATE {table} SET reason_code = 'none' WHERE reason_code IS NULL;\n"
        )
    return f"CREATE INDEX ix_{table}_{n:03d}_reason ON {table} (reason_code);\nANALYZE {table};\n"


@case(
    "u57_sql_files_apply_one_fails",
    "python apply_migrations.py",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED 137_backfill_refund_reasons.sql at statement 2: OperationalError: no such column: reason_cde",
        "done: 199 applied, 1 failed (137_backfill_refund_reasons.sql)",
    ],
)
def _sql_files(root: Path) -> bytes:
    write(root, {"apply_migrations.py": _APPLY_SQL})
    (root / "data").mkdir()
    created: list[str] = []
    for n in range(1, 201):
        area = _AREAS[n % len(_AREAS)]
        if n == 137:
            refunds = next(t for t in created if t.startswith("refunds_"))
            name, text = (
                "137_backfill_refund_reasons.sql",
                (
                    f"ALTER TABLE {refunds} ADD COLUMN refund_reason TEXT;\n"
                    f"UPDATE {refunds} SET refund_reason = reason_cde WHERE refund_reason IS NULL;\n"
                ),
            )
        else:
            name, text = _sql_file(n, area, created)
        write(root, {f"sql/{name}": text})
    return _settle(sh(f"{PY} apply_migrations.py", root), root)


_CREATE_ALL = '''
    """Create the ops console's schema from its models and seed the lookup tables."""

    from sqlalchemy import (Column, DateTime, ForeignKey, Index, Integer, MetaData, String, Table, Text, create_engine,
                            func, insert, select)

    metadata = MetaData()
    AREAS = {areas!r}
    KINDS = ["events", "jobs", "attempts", "reports", "snapshots"]
    for area in AREAS:
        for kind in KINDS:
            name = f"{{area}}_{{kind}}"
            Table(
                name,
                metadata,
                Column("id", Integer, primary_key=True),
                Column("reference", String(64), nullable=False, unique=True),
                Column("status", String(20), nullable=False, server_default="pending"),
                Column("detail", Text),
                Column("created_at", DateTime, nullable=False, server_default=func.now()),
                Index(f"ix_{{name}}_status_created", "status", "created_at"),
            )
    failed_jobs = Table(
        "failed_jobs",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("queue", String(40), nullable=False),
        Column("exception", Text, nullable=False),
        Column("retry_of", Integer, ForeignKey("failed_jobs.id")),
    )

    engine = create_engine("sqlite:///data/ops.db", echo=True)
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(failed_jobs), [
            {{"queue": "webhooks", "exception": "TimeoutError: webhook endpoint did not answer in 30s"}},
            {{"queue": "billing", "exception": "ConnectionError: payment gateway refused the connection"}},
            {{"queue": "export", "exception": "PermissionError: [Errno 13] cannot write export file"}},
        ])
        count = conn.execute(select(func.count()).select_from(failed_jobs)).scalar_one()
    print(f"schema ready: {{len(metadata.tables)}} tables created in data/ops.db, {{count}} sample failed_jobs rows")
'''


@case(
    "u57_sqlalchemy_create_all_echo_clean",
    "python create_schema.py",
    clean=True,
    group=GROUP,
    decisive=["schema ready: 91 tables created in data/ops.db, 3 sample failed_jobs rows"],
)
def _create_all(root: Path) -> bytes:
    areas = ["errors", "exceptions", "retry", "failed_payments", "billing", "orders", "refunds", "ledger", "invoice",
             "webhooks", "audit", "export", "session", "shipping", "tax", "coupons", "pricing", "search"]  # fmt: skip
    write(root, {"create_schema.py": _CREATE_ALL.format(areas=areas)})
    (root / "data").mkdir()
    env = _py_env(root)
    return _settle(sh(f"{env} python create_schema.py", root), root)
