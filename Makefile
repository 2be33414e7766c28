# Two commands matter: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.deps-installed
.DEFAULT_GOAL := help

.PHONY: help run run-guard test test-cluster screenshots lint format messages setup redis-start redis-stop mariadb-start mariadb-stop bench-setup bench-shops bench-seckill bench-claims bench-capacity bench-memory bench-uploads bench-api bench-search bench-latency bench-buckets bench-stream bench-recommend probe clean

help:  ## list the targets (this page; `make` alone shows it)
	@echo "Dianping: \`make run\` serves everything on http://127.0.0.1:8000/, \`make test\` runs the suite."
	@echo
	@awk 'BEGIN {FS = ":[^#]*## "} /^[a-z][a-z-]*:[^=]*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: Python 3.11+ is required ($(PYTHON) is older)"; exit 1; }
	@$(PY) -m pip --version >/dev/null 2>&1 || { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

setup:  ## the system packages, the virtualenv and its packages (every target below does this first)
	@PYTHON=$(PYTHON) scripts/bootstrap-system.sh $(SETUP_FOR)
	@$(MAKE) --no-print-directory --silent $(STAMP)

run: SETUP_FOR = run
run: run-guard setup  ## everything set up, then web + notification stream + worker + beat until Ctrl-C
	@scripts/run.sh

run-guard:  # a second `make run` stops here, before it touches anything
	@scripts/run.sh --check

test: SETUP_FOR = test
test: setup  ## the whole suite against a real Redis (DATABASE_URL=mysql://... for MariaDB)
	@scripts/test.sh $(PYTEST_ARGS)

test-cluster: SETUP_FOR = test
test-cluster: setup  ## the whole suite on a local 3-master Redis Cluster (started and stopped)
	@scripts/test-cluster.sh $(PYTEST_ARGS)

screenshots: SETUP_FOR = test
screenshots: setup  ## retake the README's screenshots (docs/screenshots/) from the demo data
	@UPDATE_SCREENSHOTS=1 scripts/test.sh tests/web/test_screenshots.py

# The translations: strings extracted into locale/zh_Hans (edit the .po files, then run
# this again); the compiled .mo files are committed, so installs need no gettext.
I18N_IGNORE := --ignore 'var/*' --ignore 'tests/*' --ignore 'bench/*' --ignore '*/vendor/*'
messages: SETUP_FOR = test  # gettext comes with the test tools
messages: setup  ## extract the client's, admin's and API's strings into locale/ and compile them
	$(PY) manage.py makemessages --locale zh_Hans --domain django --add-location file --no-obsolete $(I18N_IGNORE)
	$(PY) manage.py makemessages --locale zh_Hans --domain djangojs --add-location file --no-obsolete $(I18N_IGNORE)
	$(PY) manage.py compilemessages --locale zh_Hans --ignore '.venv' --ignore 'var'

lint: setup  ## ruff, mypy over the packages pyproject.toml lists, then the import layers
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

format: setup  ## ruff's fixes and formatting, applied
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

redis-start:  ## start make run's two Redis servers alone (6390, and 6392 for the sale)
	@scripts/redis.sh start run && scripts/redis.sh start sale

redis-stop:  ## stop the two Redis servers redis-start started
	@scripts/redis.sh stop run; scripts/redis.sh stop sale

mariadb-start:  ## a throwaway MariaDB on 127.0.0.1:3307; prints its DATABASE_URL
	@scripts/mariadb.sh start

mariadb-stop:  ## stop the MariaDB mariadb-start started
	@scripts/mariadb.sh stop

bench-setup: SETUP_FOR = bench
bench-setup: setup  ## wrk and var/ for the benchmarks (scripts/bench.sh brings Redis, MariaDB)
	@mkdir -p var  # the bench runs the production settings, which do not create it

bench-shops: bench-setup  ## GET /api/shops/{id} vs a bare Django view under granian + wrk
	@scripts/bench.sh shops_bench.py $(BENCH_ARGS)

bench-seckill: bench-setup  ## the flash sale under wrk, drain rate into MariaDB, Redis ceiling
	@scripts/bench.sh --mariadb seckill.py $(BENCH_ARGS)

bench-claims: bench-setup  ## claims of normal vouchers: unlimited vs guarded stock, into MariaDB
	@scripts/bench.sh --mariadb claims.py $(BENCH_ARGS)

bench-capacity: bench-setup  ## CPU per request per tier (web, Redis, MariaDB), for docs/scaling.md
	@scripts/bench.sh --mariadb capacity.py $(BENCH_ARGS)

bench-buckets: setup  ## Redis CPU per grab on each Cluster master: one hot sale in 1 and in 3 buckets
	@.venv/bin/python bench/buckets.py $(BENCH_ARGS)

bench-stream: bench-setup  ## 1,000 open notification streams: each gets its event once; memory per stream
	@.venv/bin/python bench/stream.py $(BENCH_ARGS)
bench-recommend: setup  ## "guess you like" offline: hit rate at 10 on a generated log vs popularity
	@$(PY) bench/recommend_eval.py $(BENCH_ARGS)

bench-memory: bench-setup  ## Redis bytes per session, inbox item, follow, sign-in month, buyer
	@scripts/bench.sh memory.py

bench-api: bench-setup  ## the reads users make most, each against the bare view, into MariaDB
	@scripts/bench.sh --mariadb api.py $(BENCH_ARGS)

bench-search: bench-setup  ## GET /api/search vs the bare view on 13k generated documents; index freshness
	@scripts/bench.sh search_bench.py $(BENCH_ARGS)

bench-latency: bench-setup  ## p50/p99/p99.9 at 30-90 % of each endpoint's peak (k6 open model, pinned cores)
	@scripts/bench.sh latency.py $(BENCH_ARGS)

bench-uploads: bench-setup  ## the shop page's p99 while bombs and big photos are uploaded
	@scripts/bench.sh uploads.py $(BENCH_ARGS)

probe: SETUP_FOR = test
probe: setup  ## schemathesis, every check, against a live production server (DATABASE_URL for MariaDB)
	@scripts/probe.sh

clean:  ## delete the virtualenv, var/ (databases, Redis data, media) and the tools' caches
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache .schemathesis .hypothesis
