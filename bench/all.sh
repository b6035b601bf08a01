#!/usr/bin/env bash
# `npm run bench`: every benchmark, one after another, each printing its figures and the target
# beside its ratio: relayer throughput and latency against direct transactions, signature
# authentication against viem, ledger latency at 1M rows against 1k, a bot's latency under another
# address's flood of bad signatures against its quiet latency, and under another address's flood of
# open chain reads against the same, the CLI's start-up and memory, and relay/testing's snapshot and
# revert against 50 ms each, and what following a devnet's time to the second costs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
run() { node --disable-warning=ExperimentalWarning "$@"; }
# The floor first: it sets the CPU and latency goals the relayer bench holds relay to (bench/support/floor-goals.ts).
echo "== the floor: the CPU of the parts of a relayed payment no design can skip, and the latency a lean relayer adds; relay's goals from them"
run bench/floor.bench.ts
echo "== relayer fast path vs direct executePayment, on the in-process chain and on anvil, against the floor's goals"
run bench/relayer.bench.ts
echo "== signature authentication: native vs viem recoverTypedDataAddress"
run bench/recover.bench.ts
echo "== ledger p99 latency: 1M rows vs 1k rows, SQLite and PostgreSQL"
run bench/ledger.bench.ts
echo "== the spend windows on a busy vault: record + reserve against a quiet vault"
run bench/busy-vault.bench.ts
echo "== a bot's p50 under a flood of bad signatures from another address vs quiet"
run bench/auth-flood.bench.ts
echo "== a bot's p50 under a flood of 200 open chain reads from another address vs quiet"
run bench/read-flood.bench.ts
echo "== gas per payment: executePaymentBatch of 1, 4, 16, 64 vs direct executePayment"
run bench/gas.bench.ts
echo "== ./bin/relay serve to ready: first start on a fresh clone, then warm starts"
run bench/start.bench.ts
echo "== relay serve --rpc-url resident memory on a ledger of a million requests"
run bench/serve-rss.bench.ts
echo "== the CLI as a user runs it (./bin/relay): relay pay against a running relay serve, relay --version, peak memory"
run bench/cli.bench.ts
echo "== relay/testing: snapshot() and revert(id) of a relay serve (chain, ledger, relayer state) vs 50 ms"
run bench/testing.bench.ts
echo "== a devnet's clock: the pending-block read that follows its time exactly, beside the latest-block read; what it adds to time travel"
run bench/devnet-clock.bench.ts
