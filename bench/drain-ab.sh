#!/usr/bin/env bash
# The worker's drain, A against B: two checkouts of this repository (say, main and the commit before
# a change) each drain the same backlog from a fresh copy of their own seeded database, in turn, so
# both see the same machine within a minute. On a shared machine one run of the same code varies by
# 10-20%; the ratio within a pair varies much less, so this prints the pairs and their median ratio.
#
#   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres bench/drain-ab.sh ../before . 8
#
# Each checkout needs its node_modules and its generated Prisma client. Its database comes from one
# partial `bench/run.ts` (seed, placements; kept as drain_tpl_a / drain_tpl_b until --fresh).
# psql must be on the PATH; DATABASE_URL names a server (not the embedded one) and a database to
# connect to for CREATE DATABASE.
set -euo pipefail

[ "${1:-}" = "--fresh" ] && { fresh=1; shift; } || fresh=0
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd) pairs=${3:-6} backlog=${BENCH_DRAIN_ORDERS:-6000}
: "${DATABASE_URL:?DATABASE_URL must name a PostgreSQL server}"
server=${DATABASE_URL%/*}
export PGOPTIONS="-c client_min_messages=warning"
admin() { psql -qAtX "$DATABASE_URL" -c "$1"; }
in_db() { psql -qAtX "$server/$1" -c "$2"; }

seed() { # checkout, template name
  if [ "$fresh" = 1 ] || [ -z "$(admin "SELECT 1 FROM pg_database WHERE datname = '$2'")" ]; then
    admin "DROP DATABASE IF EXISTS $2"
    (cd "$1" && BENCH_ENDPOINTS=place BENCH_WEBHOOKS=0 BENCH_QUEUE_DEPTH=0 BENCH_RESULTS=/dev/null \
      node --import tsx bench/run.ts >/dev/null)
    admin "ALTER DATABASE bench RENAME TO $2"
  fi
}

cpu_ticks() { # all PostgreSQL processes, then the given pid
  local pg=0 t
  for p in $(pgrep -u postgres); do t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) && pg=$((pg + t)); done
  echo "$pg $(awk '{print $14 + $15}' "/proc/$1/stat")"
}

drain() { # checkout, template name; prints orders/s, worker and PostgreSQL CPU µs per order
  local db=drain_run log
  admin "DROP DATABASE IF EXISTS $db" && admin "CREATE DATABASE $db TEMPLATE $2"
  # Orders the bench placed and never fulfilled (its POST /orders slices), queued as placement queues them.
  in_db $db "CREATE TABLE drain_set AS SELECT id FROM orders WHERE status = 'processing' AND attempts = 0
               AND line_kind = 'topup' ORDER BY id LIMIT $backlog"
  in_db $db "DELETE FROM graphile_worker._private_jobs"
  in_db $db "SELECT count(graphile_worker.add_job('fulfil_order', json_build_object('orderId', id),
               job_key := 'order:' || id, max_attempts := 25)) FROM drain_set" >/dev/null
  in_db $db "VACUUM ANALYZE" && in_db $db "CHECKPOINT"
  log=$(mktemp)
  (cd "$1" && exec env NODE_ENV=production DATABASE_URL="$server/$db" SUPPLIER=sandbox SANDBOX_LATENCY_MS=0 \
    APP_SECRET="$(openssl rand -hex 24)" CODES_ENCRYPTION_KEY="$(openssl rand -hex 24)" \
    NEXTAUTH_SECRET="$(openssl rand -hex 24)" node --import tsx scripts/worker.ts >"$log" 2>&1) &
  local worker=$!
  until grep -q "fulfilling orders" "$log"; do sleep 0.05; done
  read -r pg0 w0 < <(cpu_ticks $worker)
  until [ "$(in_db $db "SELECT count(*) FROM orders JOIN drain_set USING (id) WHERE status IN ('pending', 'processing')")" = 0 ]; do
    sleep 0.3
  done
  read -r pg1 w1 < <(cpu_ticks $worker)
  kill $worker && wait $worker 2>/dev/null || true
  rm -f "$log"
  local hz
  hz=$(getconf CLK_TCK)
  in_db $db "SELECT round(count(*) / extract(epoch FROM max(finished_at) - min(finished_at))) || ' '
                    || round(($w1 - $w0) * 1e6 / $hz / $backlog) || ' ' || round(($pg1 - $pg0) * 1e6 / $hz / $backlog)
               FROM orders JOIN drain_set USING (id) WHERE status IN ('completed', 'cancelled')"
}

seed "$a" drain_tpl_a
seed "$b" drain_tpl_b
echo "pair  A/s  B/s  B/A   (worker µs, PostgreSQL µs per order: A | B)"
ratios=()
for ((i = 1; i <= pairs; i++)); do
  # Which goes first alternates, so a machine that speeds up or slows down favours neither.
  if ((i % 2)); then read -r ra wa pa < <(drain "$a" drain_tpl_a); read -r rb wb pb < <(drain "$b" drain_tpl_b)
  else read -r rb wb pb < <(drain "$b" drain_tpl_b); read -r ra wa pa < <(drain "$a" drain_tpl_a); fi
  ratio=$(awk "BEGIN { printf \"%.3f\", $rb / $ra }")
  ratios+=("$ratio")
  echo "$i     $ra  $rb  $ratio   ($wa, $pa | $wb, $pb)"
done
admin "DROP DATABASE IF EXISTS drain_run"
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2;
  printf "median B/A over %d pairs: %.3f (lowest %.3f, highest %.3f)\n", NR, m, r[1], r[NR] }'
