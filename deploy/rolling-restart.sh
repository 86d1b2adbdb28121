#!/bin/sh
# A deploy with docker compose (profile `scale`), one replica at a time, so merchants notice
# nothing: for each running replica of a service, start one replica of the new build beside it,
# wait until Docker reports it healthy (GET /ready) and HAProxy has had time to put it in
# rotation, then stop the old one with SIGTERM (it drains: /ready 503 while still serving for
# SHUTDOWN_DRAIN_MS, then stops within its stop_grace_period) and remove it.
#   docker compose --profile scale build && sh deploy/rolling-restart.sh api worker
# See docs/operations.md ("Deploy and roll back").
set -eu

compose() { docker compose --profile scale "$@"; }

[ "$#" -gt 0 ] || set -- api
for service in "$@"; do
  old=$(compose ps -q "$service")
  count=$(printf '%s\n' "$old" | grep -c .)
  echo "$service: replacing $count replica(s) one at a time"
  for id in $old; do
    compose up -d --no-deps --no-recreate --scale "$service=$((count + 1))" "$service"
    new=$(compose ps -q "$service" | grep -v -F "$old" | tail -n 1)
    health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$new")
    waited=0
    while [ "$health" != healthy ] && [ "$health" != none ]; do
      if [ "$waited" -ge 120 ]; then
        echo "$service: new replica $new not healthy after 120 s; stopping it, the old ones keep serving" >&2
        docker stop -t 20 "$new" >/dev/null && docker rm "$new" >/dev/null
        exit 1
      fi
      sleep 2
      waited=$((waited + 2))
      health=$(docker inspect -f '{{.State.Health.Status}}' "$new")
    done
    # HAProxy's resolver holds addresses 5 s and wants 2 good checks (rise 2, inter 1 s).
    sleep 8
    docker stop -t 20 "$id" >/dev/null
    docker rm "$id" >/dev/null
    old=$(printf '%s\n' "$old" | grep -v -F "$id" || true)
    old="$old
$new"
    echo "$service: replaced $id with $new"
  done
done
