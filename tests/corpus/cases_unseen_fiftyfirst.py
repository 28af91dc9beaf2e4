"""Held-out outputs (group ``unseen-51``): a fifty-first batch, configuration management with Ansible as an ops agent
runs it, all on this machine: an inventory of 28 hosts (retry workers, error-report collectors, failed-job cleaners,
billing APIs and ledger databases) that all map to ``localhost`` with ``ansible_connection=local`` and host vars of
their own, playbooks with the roles ``retry_queue``, ``error_reports`` and ``failed_jobs_cleanup`` and more, loops
over many items, handlers, ``block``/``rescue``, ``ignore_errors``, ``failed_when``, ``--check --diff`` and the
``PLAY RECAP`` tables; every host writes under ``state/<host>`` in the scenario's folder.

Failing runs: ``ansible-playbook -v`` of the whole site where one ledger database's ``lineinfile`` fails in the
middle of the play (``fatal: [ledger-db-03]: FAILED!``) and the other hosts go on, a ``--limit workers`` run where the
copy on one failed-job cleaner uses an undefined variable, ``--list-hosts --list-tasks`` over eleven playbooks where a
role's task file has two actions in one task, a ``-v`` preflight play whose looped ``assert`` fails on one billing API
with its ``fail_msg``, a ``-v`` run with YAML results where ``failed_when`` trips on one retry worker's 60 queue
partitions, and ``ansible-lint`` where one ``risky-shell-pipe`` sits among 78 warnings of two legacy roles. Clean runs
named after errors and failures: the site play where a ``rescue`` recovers a drain on one retry worker
(``rescued=1``, ``failed=0``) and the cleaners' removals are ``...ignoring``, ``--check --diff`` of the retry queue
and error report templates with long diffs, a ``-vvv`` rolling run (``serial: 1``) of the ``error_reports`` and
``failed_jobs_cleanup`` roles (again ``...ignoring``), and ``ansible-lint`` of the same tree without the pipe (78
warnings, 0 failures). Labels were written with each scenario, before the engine saw the output. Needs ansible-core
2.19.14 and ansible-lint 26.10.1 from PyPI, installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u51-ansible`` (no collection from Galaxy), and git.
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-51"

_PINS = "ansible-core==2.19.14 ansible-lint==26.10.1"
#: The environment Ansible runs from, made once and kept between runs.
_VENV = VENVS / "u51-ansible"


def _ansible(root: Path) -> str:
    """The environment prefix that runs ansible-playbook and ansible-lint from the pinned venv (made once)."""
    make_venv(_VENV, _PINS, pip_options="--no-cache-dir")
    return (
        f"PATH={_VENV}/bin:$PATH HOME={root / 'home'} ANSIBLE_CONFIG={root / 'ansible.cfg'}"
        f" ANSIBLE_HOME={root / '.ansible'} ANSIBLE_LOCAL_TEMP={root / '.ansible/tmp'} ANSIBLE_NOCOLOR=1"
        " ANSIBLE_FORCE_COLOR=0 PYTHONHASHSEED=0 PY_COLORS=0"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, temporary names, times, PIDs."""
    return substitute(
        scrub(out, root),
        (r"ansible-tmp-\d+\.\d+-\d+-\d+", "ansible-tmp-1700000000.0-1000-100000000000000"),
        (r"ansible-local-\d+[A-Za-z0-9_]+", "ansible-local-1000abcdefgh"),
        (r"ansible-local-1000abcdefgh/(tmp)?\.?\w+", "ansible-local-1000abcdefgh/tmpabcdefgh"),
        (r'"_original_basename": "\.?\w{8}"', '"_original_basename": "tmpabcdefgh"'),
        (r"AnsiballZ_(\w+)\.py", r"AnsiballZ_\1.py"),
        (r'"(start|end)": "\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+"', r'"\1": "2026-01-01 00:00:00.000000"'),
        (r'"delta": "\d+:\d\d:\d\d\.\d+"', '"delta": "0:00:00.001000"'),
        (r"^( +)(start|end): '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+'", r"\1\2: '2026-01-01 00:00:00.000000'"),
        (r"^( +)delta: '\d+:\d\d:\d\d\.\d+'", r"\1delta: '0:00:00.001000'"),
        (r'"(mtime|atime|ctime)": \d+\.\d+', r'"\1": 1700000000.0'),
        (r'"(inode|dev)": \d+', r'"\1": 1000'),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
    )


# ---------------------------------------------------------------- the project


_GROUPS = {
    "ledger_db": [f"ledger-db-{i:02d}" for i in range(1, 5)],
    "retry_queue": [f"retry-worker-{i:02d}" for i in range(1, 6)],
    "error_reports": [f"error-reports-{i:02d}" for i in range(1, 4)],
    "failed_jobs": [f"failed-jobs-cleaner-{i:02d}" for i in range(1, 4)],
    "billing_api": [f"billing-api-{i:02d}" for i in range(1, 14)],
}
_HOSTS = [h for hosts in _GROUPS.values() for h in hosts]

_QUEUES = ["billing", "orders", "refunds", "invoice", "webhooks", "shipping", "ledger", "audit"]
_REPORTS = ["exceptions", "timeouts", "dead_letters", "validation", "payment_declines", "webhook_errors"]
_ENDPOINTS = ["orders", "cart", "tax", "refunds", "invoice", "pricing", "coupons", "search", "export", "session"]

_ROLES = {
    "roles/preflight/tasks/main.yml": """
        ---
        - name: Check the node port is in the agent range
          ansible.builtin.assert:
            that:
              - node_port | int >= 9100
              - node_port | int < 9200
            success_msg: "node port {{ node_port }} in range"

        - name: Check the error budget
          ansible.builtin.assert:
            that: error_budget | float <= error_budget_ceiling
            fail_msg: >-
              error_budget {{ error_budget }} on {{ inventory_hostname }} is above the
              {{ error_budget_ceiling }} ceiling for {{ app_env }}
            success_msg: "error_budget {{ error_budget }} within the {{ error_budget_ceiling }} ceiling"

        - name: Check the retry attempts of each queue
          ansible.builtin.assert:
            that:
              - queue_max_attempts[item] | int >= 1
              - queue_max_attempts[item] | int <= 10
            fail_msg: >-
              {{ item }} queue on {{ inventory_hostname }}: max_attempts {{ queue_max_attempts[item] }}
              must be between 1 and 10
            success_msg: "{{ item }} queue: {{ queue_max_attempts[item] }} attempts"
          loop: "{{ retry_queue_names }}"

        - name: Record the preflight result
          ansible.builtin.set_fact:
            preflight_passed: true
    """,
    "roles/ledger/tasks/main.yml": """
        ---
        - name: Render ledger_retention.conf
          ansible.builtin.template:
            src: ledger_retention.conf.j2
            dest: "{{ state_root }}/{{ inventory_hostname }}/ledger/ledger_retention.conf"
            mode: "0640"

        - name: Allow the billing APIs in pg_hba.conf
          ansible.builtin.lineinfile:
            path: "{{ state_root }}/{{ inventory_hostname }}/ledger/pg_hba.conf"
            line: "host ledger billing_api 10.20.0.0/16 scram-sha-256"

        - name: Show the retention of each ledger table
          ansible.builtin.debug:
            msg: "ledger table {{ item }} keeps {{ 30 * (ansible_loop.index % 4 + 1) }} days on shard {{ shard }}"
          loop: "{{ ledger_tables }}"
          loop_control:
            extended: true
    """,
    "roles/ledger/defaults/main.yml": """
        ---
        ledger_tables:
          - entries
          - entries_archive
          - refunds
          - invoices
          - payouts
          - tax_lines
          - failed_postings
          - retry_postings
          - audit_log
          - exchange_rates
    """,
    "roles/ledger/templates/ledger_retention.conf.j2": """
        # Managed by Ansible: ledger database {{ inventory_hostname }}
        shard = {{ shard }}
        {% for t in ledger_tables %}
        {{ t }}.retention_days = {{ 30 * (loop.index % 4 + 1) }}
        {% endfor %}
    """,
    "roles/retry_queue/defaults/main.yml": """
        ---
        retry_queue_drain_fails: false
        retry_queue_max_attempts: 5
        retry_queue_backoff_seconds: 10
        retry_queue_dead_letter: false
    """,
    "roles/retry_queue/tasks/main.yml": """
        ---
        - name: Render retry_queue.ini
          ansible.builtin.template:
            src: retry_queue.ini.j2
            dest: "{{ state_root }}/{{ inventory_hostname }}/retry_queue/retry_queue.ini"
            mode: "0640"
          notify: Reload retry queue workers

        - name: Drain stale retry batches
          block:
            - name: Run the retry batch drainer
              ansible.builtin.command:
                cmd: >-
                  sh -c 'test {{ retry_queue_drain_fails | lower }} = false
                  || { echo "drain: batch 0042 locked by another worker" >&2; exit 3; }'
              changed_when: false
          rescue:
            - name: Requeue the locked retry batch for the next run
              ansible.builtin.copy:
                dest: "{{ state_root }}/{{ inventory_hostname }}/retry_queue/requeued.txt"
                content: "batch 0042 requeued after drain error\\n"
                mode: "0644"
          always:
            - name: Record the drain attempt
              ansible.builtin.debug:
                msg: "retry drain finished on {{ inventory_hostname }} (shard {{ shard }})"

        - name: Show the retry policy of each queue
          ansible.builtin.debug:
            msg: >-
              {{ item }}: max_attempts={{ queue_max_attempts[item] }} backoff={{ retry_queue_backoff_seconds }}s
              dead_letter={{ retry_queue_dead_letter }}
          loop: "{{ retry_queue_names }}"
    """,
    "roles/retry_queue/templates/retry_queue.ini.j2": """
        # Managed by Ansible: retry queue worker {{ inventory_hostname }}
        [worker]
        name = {{ inventory_hostname }}
        shard = {{ shard }}
        datacenter = {{ datacenter }}
        max_attempts = {{ retry_queue_max_attempts }}
        backoff_seconds = {{ retry_queue_backoff_seconds }}
        dead_letter = {{ retry_queue_dead_letter | lower }}
        error_budget = {{ error_budget }}
        {% for q in retry_queue_names %}

        [queue:{{ q }}]
        spool = /var/spool/retry_queue/{{ q }}
        max_attempts = {{ queue_max_attempts[q] }}
        on_error = retry
        on_failed = dead_letter
        {% endfor %}
    """,
    "roles/retry_queue/handlers/main.yml": """
        ---
        - name: Reload retry queue workers
          ansible.builtin.copy:
            dest: "{{ state_root }}/{{ inventory_hostname }}/retry_queue/reloaded"
            content: "reloaded\\n"
            mode: "0644"
    """,
    "roles/error_reports/tasks/main.yml": """
        ---
        - name: Render error_reports.yml
          ansible.builtin.template:
            src: error_reports.yml.j2
            dest: "{{ state_root }}/{{ inventory_hostname }}/error_reports/error_reports.yml"
            mode: "0640"
          notify: Restart error report collector

        - name: Register the error report kinds
          ansible.builtin.set_fact:
            error_reports_routes: "{{ error_reports_routes | default({}) | combine({item: 'errors.' + item}) }}"
          loop: "{{ error_report_kinds }}"

        - name: Show the error report routes
          ansible.builtin.debug:
            var: error_reports_routes
    """,
    "roles/error_reports/templates/error_reports.yml.j2": """
        # Managed by Ansible: error report collector {{ inventory_hostname }}
        collector: {{ inventory_hostname }}
        datacenter: {{ datacenter }}
        error_budget: {{ error_budget }}
        reports:
        {% for kind in error_report_kinds %}
          - kind: {{ kind }}
            topic: errors.{{ kind }}
            alert_after_failures: {{ loop.index * 3 }}
            retention_days: {{ 7 * loop.index }}
        {% endfor %}
    """,
    "roles/error_reports/handlers/main.yml": """
        ---
        - name: Restart error report collector
          ansible.builtin.copy:
            dest: "{{ state_root }}/{{ inventory_hostname }}/error_reports/restarted"
            content: "restarted\\n"
            mode: "0644"
    """,
    "roles/failed_jobs_cleanup/defaults/main.yml": """
        ---
        failed_jobs_cleanup_keep_days: 7
        failed_jobs_cleanup_batch: 100
    """,
    "roles/failed_jobs_cleanup/tasks/main.yml": """
        ---
        - name: Write the failed jobs cleanup policy
          ansible.builtin.copy:
            dest: "{{ state_root }}/{{ inventory_hostname }}/failed_jobs/cleanup.conf"
            content: |
              keep_days = {{ failed_jobs_cleanup_keep_days }}
              batch = {{ failed_jobs_cleanup_batch }}
              archive = {{ failed_jobs_archive_bucket }}
            mode: "0644"

        - name: Remove the legacy failed_jobs spool from the old layout
          ansible.builtin.command:
            cmd: "rm -r {{ state_root }}/{{ inventory_hostname }}/legacy_failed_jobs"
          register: failed_jobs_cleanup_legacy
          changed_when: failed_jobs_cleanup_legacy.rc == 0
          ignore_errors: true

        - name: Schedule the expired failed job batches
          ansible.builtin.debug:
            msg: "failed job batch {{ '%04d' | format(item) }} past {{ failed_jobs_cleanup_keep_days }} days: archived"
          loop: "{{ range(1, 13) | list }}"
    """,
    "roles/billing_api/tasks/main.yml": """
        ---
        - name: Build the billing endpoint map
          ansible.builtin.set_fact:
            billing_api_routes: "{{ billing_api_routes | default({}) | combine({item: '/v2/' + item}) }}"
          loop: "{{ billing_endpoints }}"

        - name: Show the billing routes
          ansible.builtin.debug:
            msg: "{{ item.key }} -> {{ item.value }} on port {{ node_port }}"
          loop: "{{ billing_api_routes | dict2items }}"
    """,
}

_PLAYS = [
    ("Preflight checks on every host", "all", "preflight"),
    ("Ledger databases", "ledger_db", "ledger"),
    ("Retry queue workers", "retry_queue", "retry_queue"),
    ("Error report collectors", "error_reports", "error_reports"),
    ("Failed job cleaners", "failed_jobs", "failed_jobs_cleanup"),
    ("Billing APIs", "billing_api", "billing_api"),
]


def _play(name: str, hosts: str, role: str) -> str:
    return f"- name: {name}\n  hosts: {hosts}\n  gather_facts: false\n  roles:\n    - role: {role}\n"


def _project(
    root: Path,
    *,
    host_vars: dict[str, dict[str, object]] | None = None,
    missing: tuple[str, ...] = (),
    plays: list[tuple[str, str, str]] | None = None,
) -> None:
    """The inventory, its host vars, ansible.cfg, the roles and ``site.yml``; each host's state folder (with
    the files its databases and spools already have, except the ``missing`` ones)."""
    lines = []
    for group, hosts in _GROUPS.items():
        lines.append(f"[{group}]")
        lines += [f"{h} shard={i}" for i, h in enumerate(hosts, 1)]
        lines.append("")
    lines += ["[workers:children]", "retry_queue", "error_reports", "failed_jobs", ""]
    lines += ["[all:vars]", "ansible_connection=local", f"ansible_python_interpreter={_VENV}/bin/python", ""]
    files = {
        "ansible.cfg": f"""
            [defaults]
            inventory = inventory/hosts.ini
            forks = 1
            retry_files_enabled = False
            host_key_checking = False
            nocows = 1
            remote_tmp = {root}/.ansible/remote
            roles_path = roles

            [connection]
            pipelining = True
        """,
        "inventory/hosts.ini": "\n".join(lines),
        "inventory/group_vars/all.yml": f"""
            ---
            state_root: {root}/state
            app_env: production
            error_budget_ceiling: 0.05
            retry_queue_names: {_QUEUES}
            error_report_kinds: {_REPORTS}
            billing_endpoints: {_ENDPOINTS}
        """,
        "inventory/group_vars/retry_queue.yml": """
            ---
            retry_queue_max_attempts: 7
            retry_queue_backoff_seconds: 30
            retry_queue_dead_letter: true
        """,
        "inventory/group_vars/failed_jobs.yml": """
            ---
            failed_jobs_cleanup_keep_days: 14
            failed_jobs_cleanup_batch: 500
        """,
    }
    overrides = host_vars or {}
    for i, host in enumerate(_HOSTS):
        hv: dict[str, object] = {
            "node_port": 9100 + i,
            "error_budget": f"0.0{i % 5 + 1}",
            "datacenter": ["fra1", "ams3", "lon2"][i % 3],
            "queue_max_attempts": {q: 3 + (i + k) % 6 for k, q in enumerate(_QUEUES)},
        }
        if host.startswith("failed-jobs"):
            hv["failed_jobs_archive_bucket"] = f"s3://failed-jobs-archive/{host}"
        hv.update(overrides.get(host, {}))
        hv = {k: v for k, v in hv.items() if v is not None}
        body = "".join(f"{k}: {v}\n" for k, v in hv.items())
        files[f"inventory/host_vars/{host}.yml"] = "---\n" + body
        for sub in ("ledger", "retry_queue", "error_reports", "failed_jobs"):
            (root / "state" / host / sub).mkdir(parents=True, exist_ok=True)
        if host.startswith("ledger") and host not in missing:
            files[f"state/{host}/ledger/pg_hba.conf"] = "local all postgres peer\nhost ledger ledger 10.0.0.0/8 md5\n"
    write(root, files)
    write(root, _ROLES)
    write(root, {"site.yml": "---\n" + "\n".join(_play(*p) for p in (plays or _PLAYS))})
    write(root, {f"{p[2]}.yml": "---\n" + _play(*p) for p in _PLAYS})


# ---------------------------------------------------------------- ansible-playbook runs


@case(
    "u51_site_rescued_and_ignoring_clean",
    "ansible-playbook",
    clean=True,
    group=GROUP,
    decisive=["rescued=1    ignored=0"],
)
def _site_clean(root: Path) -> bytes:
    _project(root, host_vars={"retry-worker-04": {"retry_queue_drain_fails": "true"}})
    return _settle(sh(f"{_ansible(root)} ansible-playbook site.yml", root), root)


@case(
    "u51_site_v_fatal_ledger_db_03",
    "ansible-playbook -v",
    clean=False,
    group=GROUP,
    decisive=[
        "[ERROR]: Task failed: Module failed: Destination",
        "Origin: /tmp/work/roles/ledger/tasks/main.yml:8:3",
        "failed=1 ",
    ],
)
def _site_fatal(root: Path) -> bytes:
    _project(root, missing=("ledger-db-03",))
    return _settle(sh(f"{_ansible(root)} ansible-playbook -v site.yml", root), root)


@case(
    "u51_undefined_var_failed_jobs_cleaner_03",
    "ansible-playbook",
    clean=False,
    group=GROUP,
    decisive=[
        "[ERROR]: Task failed: Finalization of task args for 'ansible.builtin.copy' failed",
        "Origin: /tmp/work/roles/failed_jobs_cleanup/tasks/main.yml:5:14",
        "failed=1 ",
    ],
)
def _undefined(root: Path) -> bytes:
    _project(root, host_vars={"failed-jobs-cleaner-03": {"failed_jobs_archive_bucket": None}})
    return _settle(sh(f"{_ansible(root)} ansible-playbook site.yml --limit workers", root), root)


@case(
    "u51_preflight_assert_fail_msg",
    "ansible-playbook -v",
    clean=False,
    group=GROUP,
    decisive=[
        "[ERROR]: Task failed: Action failed: refunds queue on billing-api-07: max_attempts 0 must be between 1",
        "Origin: /tmp/work/roles/preflight/tasks/main.yml:17:3",
        "failed=1 ",
    ],
)
def _assert(root: Path) -> bytes:
    limits = {q: 4 for q in _QUEUES} | {"refunds": 0}
    _project(root, host_vars={"billing-api-07": {"queue_max_attempts": limits}})
    return _settle(sh(f"{_ansible(root)} ansible-playbook -v preflight.yml", root), root)


_ROTATE = """
    ---
    - name: Keep a copy of the exception log
      ansible.builtin.copy:
        src: "{{ state_root }}/{{ inventory_hostname }}/error_reports/exceptions.log"
        dest: "{{ state_root }}/{{ inventory_hostname }}/error_reports/exceptions.log.1"
        remote_src: true
        mode: "0640"

    - name: Remove the rotated exception logs
      ansible.builtin.file:
        path: "{{ state_root }}/{{ inventory_hostname }}/error_reports/exceptions.log.1"
        state: absent
      ansible.builtin.command:
        cmd: "truncate -s 0 {{ state_root }}/{{ inventory_hostname }}/error_reports/exceptions.log"

    - name: Report the rotation
      ansible.builtin.debug:
        msg: "exception logs rotated on {{ inventory_hostname }}"
"""


@case(
    "u51_list_tasks_conflicting_actions",
    "ansible-playbook --list-tasks",
    clean=False,
    group=GROUP,
    decisive=[
        "conflicting action statements: ansible.builtin.file, ansible.builtin.command",
        "Origin: /tmp/work/roles/error_reports/tasks/rotate.yml:9:3",
    ],
)
def _list_tasks(root: Path) -> bytes:
    _project(root)
    write(
        root,
        {
            "roles/error_reports/tasks/rotate.yml": _ROTATE,
            "exceptions_rotation.yml": """
                ---
                - name: Rotate the exception logs
                  hosts: error_reports
                  gather_facts: false
                  tasks:
                    - name: Rotate with the error_reports role
                      ansible.builtin.import_role:
                        name: error_reports
                        tasks_from: rotate
            """,
            "drain_retry_queue.yml": _play("Drain the retry queues", "retry_queue", "retry_queue"),
            "restart_workers.yml": "---\n" + _play("Restart the workers", "workers", "preflight"),
        },
    )
    loop = (
        'rc=0; for pb in *.yml; do echo "== $pb"; ansible-playbook --list-hosts --list-tasks "$pb" || rc=$?; done;'
        " exit $rc"
    )
    return _settle(sh(f"{_ansible(root)} sh -c '{loop}'", root), root)


_DEPTH = """
    #!/bin/sh
    # queue_depth.sh HOST FILE: one line per retry queue partition of HOST, over_limit past 40000 messages.
    awk -v host="$1" '{
        flag = ($3 > 40000) ? " over_limit" : ""
        printf "%s queue=%s depth=%d oldest=%ds%s\\n", host, $1, $3, $4, flag
    }' "$2"
"""


@case(
    "u51_failed_when_queue_depth_yaml",
    "ansible-playbook -v (yaml results)",
    clean=False,
    group=GROUP,
    decisive=[
        "fatal: [retry-worker-03]: FAILED!",
        "queue=shipping-04 depth=48120 oldest=1281s over_limit",
        "failed=1 ",
    ],
)
def _failed_when(root: Path) -> bytes:
    _project(root)
    for w, host in enumerate(_GROUPS["retry_queue"]):
        rows = []
        for k in range(60):
            queue = f"{_QUEUES[k % len(_QUEUES)]}-{k // len(_QUEUES):02d}"
            depth = (k * 7919 + w * 104729) % 9000
            if host == "retry-worker-03" and k == 37:
                depth = 48120
            rows.append(f"{queue} depth {depth} {(k * 131 + w * 17) % 3600}\n")
        write(root, {f"state/{host}/retry_queue/partitions.txt": "".join(rows)})
    write(
        root,
        {
            "bin/queue_depth.sh": _DEPTH,
            "check_queue_depth.yml": """
                ---
                - name: Check the retry queue depth before the deploy
                  hosts: retry_queue
                  gather_facts: false
                  tasks:
                    - name: Read the depth of every retry queue partition
                      ansible.builtin.command:
                        cmd: >-
                          sh {{ playbook_dir }}/bin/queue_depth.sh {{ inventory_hostname }}
                          {{ state_root }}/{{ inventory_hostname }}/retry_queue/partitions.txt
                      register: queue_depth
                      changed_when: false
                      failed_when: "'over_limit' in queue_depth.stdout"

                    - name: Count the partitions with a backlog
                      ansible.builtin.debug:
                        msg: "{{ queue_depth.stdout_lines | select('search', 'depth=[0-9]{4,}') | list | length }}"
            """,
        },
    )
    env = f"{_ansible(root)} ANSIBLE_CALLBACK_RESULT_FORMAT=yaml"
    return _settle(sh(f"{env} ansible-playbook -v check_queue_depth.yml", root), root)


@case(
    "u51_check_diff_retry_error_reports_clean",
    "ansible-playbook --check --diff",
    clean=True,
    group=GROUP,
    decisive=[f"{'error-reports-03':<26} : ok=", f"{'retry-worker-05':<26} : ok="],
)
def _check_diff(root: Path) -> bytes:
    plays = [p for p in _PLAYS if p[2] in ("retry_queue", "error_reports")]
    _project(root, plays=plays)
    ansible = _ansible(root)
    sh(f"{ansible} ansible-playbook site.yml", root)
    ini = root / "roles/retry_queue/templates/retry_queue.ini.j2"
    text = ini.read_text().replace("on_error = retry\n", "on_error = retry\nbackoff_seconds = {{ 15 * loop.index }}\n")
    ini.write_text(
        text.replace("on_failed = dead_letter", "on_failed = dead_letter\ndead_letter_topic = errors.{{ q }}.dead")
    )
    reports = root / "roles/error_reports/templates/error_reports.yml.j2"
    text = reports.read_text().replace("retention_days: {{ 7 * loop.index }}", "retention_days: {{ 14 * loop.index }}")
    reports.write_text(text.replace("    topic:", "    page_on_call: {{ loop.index > 3 }}\n    topic:"))
    gv = root / "inventory/group_vars/retry_queue.yml"
    gv.write_text(gv.read_text().replace("retry_queue_backoff_seconds: 30", "retry_queue_backoff_seconds: 45"))
    return _settle(sh(f"{ansible} ansible-playbook --check --diff site.yml", root), root)


@case(
    "u51_vvv_failed_jobs_cleanup_clean",
    "ansible-playbook -vvv",
    clean=True,
    group=GROUP,
    decisive=[f"{'failed-jobs-cleaner-03':<26} : ok="],
)
def _vvv(root: Path) -> bytes:
    _project(root)
    rolling = "".join(_play(*p).replace("\n  gather_facts", "\n  serial: 1\n  gather_facts") for p in _PLAYS[3:5])
    write(root, {"rolling_cleanup.yml": "---\n" + rolling})  # one host at a time, as the cleaners share a bucket
    return _settle(sh(f"{_ansible(root)} ansible-playbook -vvv rolling_cleanup.yml", root), root)


# ---------------------------------------------------------------- ansible-lint


def _legacy_role(area: str, tasks: int) -> dict[str, str]:
    """A role kept from the old repository: short module names, lower-case task names and ``yes`` booleans,
    which the project's ``.ansible-lint`` lists as warnings only."""
    body = ["---\n"]
    for k in range(tasks):
        body.append(
            f"- name: write the {area} {_REPORTS[k % len(_REPORTS)]} rule {k:02d}\n"
            "  copy:\n"
            f'    dest: "{{{{ state_root }}}}/{{{{ inventory_hostname }}}}/error_reports/{area}-{k:02d}.rule"\n'
            f'    content: "{area} rule {k} on_failure=retry\\n"\n'
            '    mode: "0644"\n'
            "    force: yes\n\n"
        )
    return {f"roles/{area}/tasks/main.yml": "".join(body).rstrip("\n") + "\n"}


def _lint(root: Path, extra: dict[str, str]) -> str:
    """The project with two legacy roles and ``extra`` files, committed; the command that lints it."""
    _project(root)
    write(root, _legacy_role("exceptions_digest", 14) | _legacy_role("webhooks_retry", 12) | extra)
    write(
        root,
        {
            "legacy.yml": "---\n"
            + _play("Exception digests", "error_reports", "exceptions_digest")
            + _play("Webhook retries", "retry_queue", "webhooks_retry"),
            ".ansible-lint": """
                exclude_paths:
                  - state/
                  - .ansible/
                  - home/
                warn_list:
                  - fqcn[action-core]
                  - name[casing]
                  - yaml[truthy]
            """,
            ".gitignore": "state/\n",
        },
    )
    sh("git init -q . && git add -A", root)
    return f"{_ansible(root)} ansible-lint --offline"


@case(
    "u51_ansible_lint_warnings_only_clean",
    "ansible-lint",
    clean=True,
    group=GROUP,
    decisive=["Passed: 0 failure(s), "],
)
def _lint_clean(root: Path) -> bytes:
    return _settle(sh(_lint(root, {}), root), root)


@case(
    "u51_ansible_lint_one_failure_among_warnings",
    "ansible-lint",
    clean=False,
    group=GROUP,
    decisive=[
        "risky-shell-pipe: Shells that use pipes should set the pipefail option.",
        "roles/failed_jobs_cleanup/tasks/purge.yml:",
        "Failed: 1 failure(s), ",
    ],
)
def _lint_fail(root: Path) -> bytes:
    purge = """
        ---
        - name: Purge the failed jobs older than the retention
          ansible.builtin.shell: >-
            ls -1t {{ state_root }}/{{ inventory_hostname }}/failed_jobs/*.job
            | tail -n +{{ failed_jobs_cleanup_batch }} | xargs -r rm -f
          register: failed_jobs_cleanup_purge
          changed_when: failed_jobs_cleanup_purge.stdout | length > 0
    """
    extra = {"roles/failed_jobs_cleanup/tasks/purge.yml": purge}
    return _settle(sh(_lint(root, extra), root), root)
