"""Held-out outputs (group ``unseen-52``): a fifty-second batch, the AWS CLI v1 and boto3 as an agent runs them against
a local emulator: moto's server, started in each scenario on 127.0.0.1 with a free port and fake credentials, every
call made with ``--endpoint-url``.

Failing runs: ``aws s3 sync`` of about 400 files where an IAM policy (moto's access checks turned on) denies the upload
of one object in the middle, a deploy script that syncs five build folders to five buckets where the ``invoice`` bucket
was never made (a ``fatal error`` in the middle and exit status 0), ``aws cloudformation deploy`` of eight stacks where
one asks for a bucket name another stack already holds (moto fails the change set; it records no per-resource events
and no rollback, so ``describe-stack-events`` shows the stacks' own events), a loop of ``dynamodb batch-write-item``
where one batch has a number key in a string-keyed table, SQS send and receive loops where a FIFO queue gets a batch
without ``MessageGroupId``, IAM provisioning of a dozen roles and policies where one policy document says ``Allowed``,
``aws --debug s3api get-object`` of a missing key (the decisive lines are at the end of a long debug log), and a boto3
ingest script whose progress lines end in a ``ConditionalCheckFailedException`` traceback. Clean runs named after
errors and failures: ``aws s3 ls --recursive --summarize`` of an archive of ``errors/``, ``failed-jobs/`` and
``retry-queue/`` keys, ``aws s3 cp --recursive`` of ``failed_payments`` and ``error_budget`` reports, CloudFormation
stacks ``errors-pipeline`` and ``retry-workers`` shown with ``--output table`` and ``text``, and DynamoDB batch writes
and paginated scans of a ``failed-payments-retry`` table. ``aws s3`` finishes its transfers in an order of its own,
so each run of ``upload:`` lines is put in the order of its files. The last line of the debug log repeats the line of
its traceback, so that case labels the traceback's line and the exit status. Labels were written with each scenario,
before the engine saw the output. Needs awscli, boto3 and moto[server] from PyPI, installed once into a virtual
environment of their own under ``/tmp/offloader-corpus-venvs``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-52"

_REQS = "awscli==1.46.3 boto3==1.44.18 botocore==1.44.18 moto[server]==5.2.6"
_REQS_QUOTED = " ".join(f"'{r}'" for r in _REQS.split())
#: The environment the CLI, boto3 and moto's server run in, made once and kept between runs.
_VENV = VENVS / "u52-aws"


def _venv() -> Path:
    make_venv(_VENV, _REQS_QUOTED)
    return _VENV


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(root: Path, setup: str, cmd: str, *, auth_after: int | None = None) -> bytes:
    """Start moto's server, run the boto3 ``setup`` script quietly, then ``cmd`` (its output is the case's)."""
    venv = _venv()
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    write(
        root,
        {
            ".aws/config": "[default]\nregion = us-east-1\ns3 =\n    max_concurrent_requests = 1\n",
            ".aws/credentials": "[default]\naws_access_key_id = testing\naws_secret_access_key = testing\n",
        },
    )
    env = {**os.environ, "HOME": str(root)}
    if auth_after is not None:
        env["INITIAL_NO_AUTH_ACTION_COUNT"] = str(auth_after)
    log = (root / "moto.log").open("wb")
    server = subprocess.Popen(
        [str(venv / "bin" / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        prefix = (
            f"export PATH={venv}/bin:$PATH HOME={root} AWS_CONFIG_FILE={root}/.aws/config"
            f" AWS_SHARED_CREDENTIALS_FILE={root}/.aws/credentials AWS_DEFAULT_REGION=us-east-1"
            f" EP={endpoint} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1;"
        )
        if setup:
            (root / "setup_env.py").write_text(_SETUP_HEAD + setup)
            sh(f"{prefix} python setup_env.py > setup.log 2>&1", root)
        return _settle(sh(f"{prefix} {cmd}", root), root)
    finally:
        server.terminate()
        server.wait()
        log.close()


_SETUP_HEAD = """\
import json
import os

import boto3

EP = os.environ["EP"]
s3 = boto3.client("s3", endpoint_url=EP)
ddb = boto3.client("dynamodb", endpoint_url=EP)
iam = boto3.client("iam", endpoint_url=EP)
sqs = boto3.client("sqs", endpoint_url=EP)
"""

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


_UPLOAD = re.compile(rb"^(?:upload|upload failed): (\S+)")


def _sort_uploads(out: bytes) -> bytes:
    """``out`` with each run of ``upload:`` lines in the order of their files: ``aws s3`` submits up to five transfers
    at once whatever ``max_concurrent_requests`` says, so the order they finish in differs between two runs."""
    lines = out.split(b"\n")
    done: list[bytes] = []
    run: list[bytes] = []
    for line in lines:
        m = _UPLOAD.match(line)
        if m:
            run.append(line)
            continue
        done += sorted(run, key=lambda x: _UPLOAD.match(x).group(1))  # type: ignore[union-attr]
        run = []
        done.append(line)
    done += sorted(run, key=lambda x: _UPLOAD.match(x).group(1))  # type: ignore[union-attr]
    return b"\n".join(done)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the port, ids, keys, clocks and signatures."""
    return substitute(
        _sort_uploads(scrub(out, root)),
        (r'"(RoleId|PolicyId|UserId|AccessKeyId)": "[A-Z0-9]+"', r'"\g<1>": "AROA0000000000000000"'),
        (r'"(\w*DateTime)": \d+(\.\d+)?', r'"\g<1>": 1767225600.0'),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:5000"),
        (r"127\.0\.0\.1', port=\d+", "127.0.0.1', port=5000"),
        (_UUID, "00000000-0000-0000-0000-000000000000"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)?", "2026-01-01T00:00:00.000000Z"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(,\d+)?", "2026-01-01 00:00:00,000"),
        (r"\d{8}T\d{6}Z", "20260101T000000Z"),
        (r"\d{8}/us-east-1", "20260101/us-east-1"),
        (r"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT", "Thu, 01 Jan 2026 00:00:00 GMT"),
        (r"Signature=[0-9a-f]{64}", "Signature=" + "0" * 64),
        (r"\b(AKIA|AROA|AIDA|ANPA)[A-Z0-9]{16}\b", r"\g<1>0000000000000000"),
        (r"0x[0-9a-f]{8,16}\b", "0x7f0000000000"),
        (r"^[0-9a-f]{64}$", "0" * 64),
        (r"\b[A-Za-z0-9]{52}\b", "REQUESTID0000000000000000000000000000000000000000000"),
    )


# ---------------------------------------------------------------- S3


_DENY_ONE = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
        {"Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::site-assets/exports/ledger-2024-q3.csv"},
    ],
}


@case(
    "u52_s3_sync_denied_one_object",
    "aws s3 sync",
    clean=False,
    group=GROUP,
    decisive=["upload failed: site/exports/ledger-2024-q3.csv", "[exit status 1]"],
)
def _s3_sync_denied(root: Path) -> bytes:
    files = {}
    for folder, ext, n in [("css", "css", 60), ("exports", "csv", 90), ("img", "svg", 120), ("js", "js", 80)]:
        for i in range(n):
            files[f"site/{folder}/{folder}-{i:03d}.{ext}"] = f"/* {folder} {i} */\n" + "x" * (i % 7 * 40) + "\n"
    for q in range(1, 5):
        for year in (2023, 2024):
            files[f"site/exports/ledger-{year}-q{q}.csv"] = "date,account,amount\n" + "2024-01-01,4000,12.50\n" * q
    files["site/index.html"] = "<html><body>billing portal</body></html>\n"
    write(root, files)
    setup = (
        's3.create_bucket(Bucket="site-assets")\n'
        'iam.create_user(UserName="deployer")\n'
        f'iam.put_user_policy(UserName="deployer", PolicyName="deploy", PolicyDocument=json.dumps({_DENY_ONE!r}))\n'
        'key = iam.create_access_key(UserName="deployer")["AccessKey"]\n'
        'with open(os.path.expanduser("~/.aws/credentials"), "w") as f:\n'
        "    f.write(f\"[default]\\naws_access_key_id = {key['AccessKeyId']}\\n\"\n"
        "            f\"aws_secret_access_key = {key['SecretAccessKey']}\\n\")\n"
    )
    return _run(root, setup, 'aws --endpoint-url "$EP" s3 sync site s3://site-assets/ --no-progress', auth_after=4)


_AREAS = ["billing", "orders", "refunds", "invoice", "shipping"]


@case(
    "u52_s3_deploy_missing_bucket",
    "aws s3 sync",
    clean=False,
    group=GROUP,
    decisive=["fatal error: An error occurred (NoSuchBucket) when calling the ListObjectsV2 operation", "==> invoice"],
)
def _s3_deploy_missing(root: Path) -> bytes:
    files = {}
    for area in _AREAS:
        for i in range(70):
            files[f"build/{area}/static/chunk-{i:03d}.js"] = f"console.log('{area} {i}');\n"
        files[f"build/{area}/index.html"] = f"<html><title>{area}</title></html>\n"
    files["deploy.sh"] = (
        "#!/bin/sh\n"
        f"for area in {' '.join(_AREAS)}; do\n"
        '  echo "==> $area: syncing build/$area to s3://acme-$area-static/"\n'
        '  aws --endpoint-url "$EP" s3 sync "build/$area" "s3://acme-$area-static/" --delete --no-progress 2>&1\n'
        "done\n"
        'echo "deploy finished for 5 areas"\n'
    )
    write(root, files)
    setup = "".join(f's3.create_bucket(Bucket="acme-{a}-static")\n' for a in _AREAS if a != "invoice")
    return _run(root, setup, "sh deploy.sh")


_ARCHIVE_SETUP = """
s3.create_bucket(Bucket="ops-archive")
prefixes = ["errors", "exceptions", "failed-jobs", "retry-queue", "audit"]
for p, prefix in enumerate(prefixes):
    for day in range(1, 31):
        for part in range(10):
            body = ("event,status\\n" + "ok,200\\n" * ((day * part + p) % 23)).encode()
            s3.put_object(Bucket="ops-archive", Key=f"{prefix}/2024/11/{day:02d}/part-{part:04d}.csv", Body=body)
"""


@case(
    "u52_s3_ls_recursive_clean",
    "aws s3 ls",
    clean=True,
    group=GROUP,
    decisive=["Total Objects: 1500"],
)
def _s3_ls_clean(root: Path) -> bytes:
    cmd = 'aws --endpoint-url "$EP" s3 ls s3://ops-archive --recursive --human-readable --summarize'
    return _run(root, _ARCHIVE_SETUP, cmd)


@case(
    "u52_s3_cp_recursive_clean",
    "aws s3 cp",
    clean=True,
    group=GROUP,
    decisive=["Total Objects: 320"],
)
def _s3_cp_clean(root: Path) -> bytes:
    files = {}
    for folder in ["error_budget", "failed_payments", "retry_stats", "exceptions_by_service"]:
        for i in range(80):
            files[f"reports/{folder}/week-{i:02d}.json"] = json.dumps({"report": folder, "week": i, "errors": i % 9})
    write(root, files)
    cmd = (
        'aws --endpoint-url "$EP" s3 cp reports s3://audit-reports/2024/ --recursive --no-progress'
        ' && aws --endpoint-url "$EP" s3 ls s3://audit-reports/2024/ --recursive --summarize | tail -n 3'
    )
    return _run(root, 's3.create_bucket(Bucket="audit-reports")\n', cmd)


# ---------------------------------------------------------------- CloudFormation


def _template(stack: str, bucket: str, queues: list[str], tables: list[str]) -> str:
    res: dict[str, object] = {
        "Bucket": {"Type": "AWS::S3::Bucket", "Properties": {"BucketName": bucket}},
    }
    for q in queues:
        logical = "".join(w.capitalize() for w in q.replace(".", "-").split("-")) + "Queue"
        res[logical] = {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": q, "VisibilityTimeout": 60}}
    for t in tables:
        logical = "".join(w.capitalize() for w in t.split("-")) + "Table"
        res[logical] = {
            "Type": "AWS::DynamoDB::Table",
            "Properties": {
                "TableName": t,
                "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            },
        }
    outputs = {"BucketName": {"Value": {"Ref": "Bucket"}}}
    return json.dumps({"Description": f"{stack} resources", "Resources": res, "Outputs": outputs}, indent=2)


_STACKS = [
    ("billing-core", "acme-billing-core", ["billing-events", "billing-dlq"], ["billing-accounts", "billing-runs"]),
    ("ledger-exports", "acme-ledger-exports", ["ledger-export-jobs"], ["ledger-entries"]),
    ("orders-api", "acme-orders-api", ["orders-created", "orders-dlq"], ["orders", "orders-idempotency"]),
    ("tax-rates", "acme-tax-rates", ["tax-recalc"], ["tax-rates", "tax-regions"]),
    ("refunds-storage", "acme-ledger-exports", ["refunds-requested", "refunds-dlq"], ["refunds"]),
    ("shipping-labels", "acme-shipping-labels", ["shipping-label-jobs"], ["shipments"]),
    ("webhooks-out", "acme-webhooks-out", ["webhooks-outbound", "webhooks-dlq"], ["webhook-subscriptions"]),
    ("audit-trail", "acme-audit-trail", ["audit-events"], ["audit-log"]),
]


@case(
    "u52_cfn_deploy_bucket_taken",
    "aws cloudformation deploy",
    clean=False,
    group=GROUP,
    decisive=[
        "An error occurred (BucketAlreadyExists) when calling the ExecuteChangeSet operation",
        "==> deploying refunds-storage",
    ],
)
def _cfn_deploy(root: Path) -> bytes:
    files = {f"stacks/{s}.json": _template(s, b, q, t) for s, b, q, t in _STACKS}
    names = " ".join(s for s, *_ in _STACKS)
    files["deploy.sh"] = (
        "#!/bin/sh\n"
        'CFN="aws --endpoint-url $EP cloudformation"\n'
        f"for stack in {names}; do\n"
        '  echo "==> deploying $stack"\n'
        '  $CFN deploy --stack-name "$stack" --template-file "stacks/$stack.json" --no-fail-on-empty-changeset 2>&1\n'
        "done\n"
        f"for stack in {names}; do\n"
        '  echo "==> events of $stack"\n'
        '  $CFN describe-stack-events --stack-name "$stack" 2>&1\n'
        '  $CFN describe-stack-resources --stack-name "$stack" 2>&1\n'
        "done\n"
    )
    write(root, files)
    return _run(root, "", "sh deploy.sh")


@case(
    "u52_cfn_stacks_table_clean",
    "aws cloudformation",
    clean=True,
    group=GROUP,
    decisive=["retry-workers\tCREATE_COMPLETE"],
)
def _cfn_table(root: Path) -> bytes:
    stacks = [
        ("errors-pipeline", "acme-errors-pipeline", ["errors-ingest", "errors-dlq", "errors-replay"], ["errors"]),
        ("retry-workers", "acme-retry-workers", ["retry-scheduled", "retry-exhausted"], ["retry-attempts"]),
        ("failed-events-archive", "acme-failed-events", ["failed-events-dlq"], ["failed-events", "exceptions"]),
    ]
    files = {f"stacks/{s}.json": _template(s, b, q, t) for s, b, q, t in stacks}
    names = " ".join(s for s, *_ in stacks)
    files["show.sh"] = (
        "#!/bin/sh\nset -e\n"
        'CFN="aws --endpoint-url $EP cloudformation"\n'
        f"for stack in {names}; do\n"
        '  $CFN create-stack --stack-name "$stack" --template-body "file://stacks/$stack.json" --output table\n'
        '  $CFN wait stack-create-complete --stack-name "$stack"\n'
        '  $CFN describe-stack-resources --stack-name "$stack" --output table\n'
        '  $CFN describe-stacks --stack-name "$stack" --output table\n'
        "done\n"
        "$CFN describe-stacks --query 'Stacks[].[StackName,StackStatus]' --output text\n"
    )
    write(root, files)
    return _run(root, "", "sh show.sh")


# ---------------------------------------------------------------- DynamoDB


def _batches(table: str, n: int, bad: int | None = None) -> dict[str, str]:
    files = {}
    for b in range(n):
        items = []
        for i in range(25):
            k = b * 25 + i
            key = {"N": str(k)} if (b == bad and i == 17) else {"S": f"pay-{k:05d}"}
            items.append(
                {
                    "PutRequest": {
                        "Item": {
                            "id": key,
                            "attempt": {"N": str(k % 4)},
                            "status": {"S": ["queued", "retrying", "settled"][k % 3]},
                            "amount_cents": {"N": str(1000 + k * 7)},
                        }
                    }
                }
            )
        files[f"batches/batch-{b:02d}.json"] = json.dumps({table: items})
    return files


_TABLE_SETUP = """
ddb.create_table(
    TableName="{table}",
    AttributeDefinitions=[{{"AttributeName": "id", "AttributeType": "S"}}],
    KeySchema=[{{"AttributeName": "id", "KeyType": "HASH"}}],
    BillingMode="PAY_PER_REQUEST",
)
"""


@case(
    "u52_dynamodb_batch_scan_clean",
    "aws dynamodb",
    clean=True,
    group=GROUP,
    decisive=['"Count": 600'],
)
def _ddb_clean(root: Path) -> bytes:
    table = "failed-payments-retry"
    write(root, _batches(table, 24))
    cmd = (
        'sh -c \'set -e; for f in batches/*.json; do echo "$f";'
        ' aws --endpoint-url "$EP" dynamodb batch-write-item --request-items "file://$f"; done;'
        f' aws --endpoint-url "$EP" dynamodb scan --table-name {table} --page-size 100 --max-items 150;'
        f' aws --endpoint-url "$EP" dynamodb scan --table-name {table} --select COUNT\''
    )
    return _run(root, _TABLE_SETUP.format(table=table), cmd)


@case(
    "u52_dynamodb_batch_type_mismatch",
    "aws dynamodb",
    clean=False,
    group=GROUP,
    decisive=[
        "An error occurred (ValidationException) when calling the BatchWriteItem operation",
        "batch 09: writing batches/batch-09.json",
    ],
)
def _ddb_bad(root: Path) -> bytes:
    table = "ledger-entries"
    write(root, _batches(table, 20, bad=9))
    cmd = (
        'sh -c \'for i in $(seq -w 0 19); do f=batches/batch-$i.json; echo "batch $i: writing $f";'
        ' aws --endpoint-url "$EP" dynamodb batch-write-item --request-items "file://$f"'
        " --return-consumed-capacity TOTAL 2>&1; done;"
        f' aws --endpoint-url "$EP" dynamodb describe-table --table-name {table}\''
    )
    return _run(root, _TABLE_SETUP.format(table=table), cmd)


# ---------------------------------------------------------------- SQS


_SQS_SETUP = """
sqs.create_queue(QueueName="refunds-retry")
sqs.create_queue(QueueName="webhooks-dlq")
sqs.create_queue(QueueName="orders-events.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})
"""


@case(
    "u52_sqs_fifo_missing_group",
    "aws sqs",
    clean=False,
    group=GROUP,
    decisive=[
        "An error occurred (MissingParameter) when calling the SendMessageBatch operation",
        "--> orders-events.fifo batch 3",
    ],
)
def _sqs(root: Path) -> bytes:
    files = {}
    for q in ["refunds-retry", "orders-events.fifo", "webhooks-dlq"]:
        for b in range(1, 6):
            entries = []
            for i in range(10):
                entry = {"Id": f"m{b}-{i}", "MessageBody": json.dumps({"queue": q, "seq": b * 10 + i})}
                if q.endswith(".fifo") and not (b == 3 and i == 4):
                    entry["MessageGroupId"] = f"customer-{i % 3}"
                entries.append(entry)
            files[f"msgs/{q}/batch-{b}.json"] = json.dumps(entries)
    files["pump.sh"] = (
        "#!/bin/sh\n"
        'SQS="aws --endpoint-url $EP sqs"\n'
        "for q in refunds-retry orders-events.fifo webhooks-dlq; do\n"
        '  url=$($SQS get-queue-url --queue-name "$q" --query QueueUrl --output text)\n'
        "  for b in 1 2 3 4 5; do\n"
        '    echo "--> $q batch $b"\n'
        '    $SQS send-message-batch --queue-url "$url" --entries "file://msgs/$q/batch-$b.json" 2>&1\n'
        "  done\n"
        "  for r in 1 2 3; do\n"
        '    $SQS receive-message --queue-url "$url" --max-number-of-messages 10 --attribute-names All'
        " --query 'Messages[].[MessageId,MD5OfBody,Body]' --output text 2>&1\n"
        "  done\n"
        '  $SQS get-queue-attributes --queue-url "$url" --attribute-names ApproximateNumberOfMessages 2>&1\n'
        "done\n"
    )
    write(root, files)
    return _run(root, _SQS_SETUP, "sh pump.sh")


# ---------------------------------------------------------------- IAM


def _policy(effect: str, actions: list[str], resource: str) -> str:
    doc = {"Version": "2012-10-17", "Statement": [{"Effect": effect, "Action": actions, "Resource": resource}]}
    return json.dumps(doc, indent=2)


_ROLES = [
    ("billing-reader", ["dynamodb:GetItem", "dynamodb:Query"], "arn:aws:dynamodb:*:*:table/billing-*"),
    ("orders-writer", ["dynamodb:PutItem", "dynamodb:UpdateItem"], "arn:aws:dynamodb:*:*:table/orders"),
    ("cart-session", ["dynamodb:GetItem", "dynamodb:PutItem"], "arn:aws:dynamodb:*:*:table/cart-sessions"),
    ("tax-calculator", ["s3:GetObject"], "arn:aws:s3:::acme-tax-rates/*"),
    ("refunds-writer", ["sqs:SendMessage", "sqs:GetQueueUrl"], "arn:aws:sqs:*:*:refunds-*"),
    ("invoice-renderer", ["s3:PutObject", "s3:GetObject"], "arn:aws:s3:::acme-invoices/*"),
    ("ledger-exporter", ["s3:PutObject"], "arn:aws:s3:::acme-ledger-exports/*"),
    ("shipping-labels", ["s3:PutObject", "sqs:ReceiveMessage"], "*"),
    ("catalog-search", ["dynamodb:Scan"], "arn:aws:dynamodb:*:*:table/catalog"),
    ("pricing-rules", ["dynamodb:GetItem"], "arn:aws:dynamodb:*:*:table/pricing"),
    ("webhooks-sender", ["sqs:ReceiveMessage", "sqs:DeleteMessage"], "arn:aws:sqs:*:*:webhooks-*"),
    ("audit-reader", ["s3:GetObject", "s3:ListBucket"], "arn:aws:s3:::acme-audit-trail*"),
]

_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


@case(
    "u52_iam_malformed_policy",
    "aws iam",
    clean=False,
    group=GROUP,
    decisive=[
        "An error occurred (MalformedPolicyDocument) when calling the CreatePolicy operation: Syntax errors in policy.",
        "==> refunds-writer",
    ],
)
def _iam(root: Path) -> bytes:
    files = {"trust.json": json.dumps(_TRUST, indent=2)}
    for name, actions, resource in _ROLES:
        files[f"policies/{name}.json"] = _policy("Allowed" if name == "refunds-writer" else "Allow", actions, resource)
    names = " ".join(n for n, *_ in _ROLES)
    files["provision.sh"] = (
        "#!/bin/sh\n"
        'IAM="aws --endpoint-url $EP iam"\n'
        f"for name in {names}; do\n"
        '  echo "==> $name"\n'
        '  $IAM create-role --role-name "$name" --assume-role-policy-document file://trust.json 2>&1\n'
        '  $IAM create-policy --policy-name "$name-access" --policy-document "file://policies/$name.json" 2>&1\n'
        '  $IAM attach-role-policy --role-name "$name"'
        ' --policy-arn "arn:aws:iam::123456789012:policy/$name-access" 2>&1\n'
        "done\n"
        "$IAM list-roles --query 'sort_by(Roles, &RoleName)[].[RoleName,Arn]' --output table\n"
        "$IAM list-policies --scope Local --query 'Policies[].[PolicyName,AttachmentCount]' --output table\n"
    )
    write(root, files)
    return _run(root, "", "sh provision.sh")


# ---------------------------------------------------------------- --debug and boto3


_INVOICE_SETUP = """
s3.create_bucket(Bucket="acme-invoices")
for m in range(1, 12):
    for i in range(1, 6):
        s3.put_object(Bucket="acme-invoices", Key=f"2024/{m:02d}/INV-{m * 100 + i:05d}.pdf", Body=b"%PDF-1.4 fake")
"""


@case(
    "u52_debug_get_object_nosuchkey",
    "aws --debug s3api",
    clean=False,
    group=GROUP,
    decisive=["botocore.errorfactory.NoSuchKey: An error occurred (NoSuchKey)", "[exit status 255]"],
)
def _debug(root: Path) -> bytes:
    cmd = 'aws --debug --endpoint-url "$EP" s3api get-object --bucket acme-invoices --key 2024/11/INV-01142.pdf inv.pdf'
    return _run(root, _INVOICE_SETUP, cmd)


_INGEST = '''\
"""Ingest the month's invoices: upload each PDF to S3 and record it in DynamoDB, once."""

import json
import os
import sys

import boto3

EP = os.environ["EP"]
s3 = boto3.client("s3", endpoint_url=EP)
table = boto3.resource("dynamodb", endpoint_url=EP).Table("invoices")


def store_invoice(inv):
    body = json.dumps(inv).encode()
    s3.put_object(Bucket="acme-invoices", Key=f"2024/11/{inv['id']}.json", Body=body)
    table.put_item(
        Item={"id": inv["id"], "customer": inv["customer"], "total_cents": inv["total_cents"]},
        ConditionExpression="attribute_not_exists(id)",
    )


def main():
    with open("invoices.jsonl") as f:
        invoices = [json.loads(line) for line in f]
    print(f"ingesting {len(invoices)} invoices into acme-invoices and table invoices")
    for n, inv in enumerate(invoices, 1):
        print(f"[{n:3d}/{len(invoices)}] processing {inv['id']} customer={inv['customer']} total={inv['total_cents']}")
        store_invoice(inv)
        if n % 25 == 0:
            print(f"checkpoint: {n} invoices stored", file=sys.stderr)
    print("done: all invoices stored")


if __name__ == "__main__":
    main()
'''


@case(
    "u52_boto3_conditional_check_traceback",
    "python (boto3)",
    clean=False,
    group=GROUP,
    decisive=[
        "botocore.errorfactory.ConditionalCheckFailedException: An error occurred (ConditionalCheckFailedException)",
        "in store_invoice",
        "[181/241] processing INV-01173",
    ],
)
def _boto3(root: Path) -> bytes:
    ids = [f"INV-{1000 + i:05d}" for i in range(1, 241)]
    ids.insert(180, "INV-01173")  # the export holds INV-01173 twice
    lines = [
        json.dumps({"id": x, "customer": f"cust-{int(x[4:]) % 37:03d}", "total_cents": int(x[4:]) * 3}) for x in ids
    ]
    write(root, {"ingest_invoices.py": _INGEST, "invoices.jsonl": "\n".join(lines) + "\n"})
    setup = 's3.create_bucket(Bucket="acme-invoices")\n' + _TABLE_SETUP.format(table="invoices")
    return _run(root, setup, "python ingest_invoices.py")
