#!/bin/sh
# `make test` several times in a row, each on a fresh clone of one commit and beside a
# CPU-bound loop, to show the suite does not fail by chance on a loaded machine.
# usage: tools/streak.sh COMMIT [RUNS]   (from the repository; RUNS defaults to 5)
# Each run's output is in /tmp/streakN.log; one line a run is appended to streak-COMMIT.log.
set -u
commit=$1; runs=${2:-5}; repo=$(pwd); log=$repo/streak-$commit.log
for i in $(seq 1 "$runs"); do
  dir=/tmp/streak$i; rm -rf "$dir"
  git clone -q "$repo" "$dir" && git -C "$dir" checkout -q "$commit"
  sh -c 'while :; do :; done' & burner=$!
  start=$(date +%s)
  (cd "$dir" && /usr/bin/time -f "%e_wall_%U_user_%S_sys" make test > "/tmp/streak$i.log" 2>&1)
  rc=$?
  end=$(date +%s)
  kill "$burner"
  echo "run $i commit $commit rc=$rc seconds=$((end-start))" \
    "$(grep -E '[0-9]+ passed' "/tmp/streak$i.log" | tail -1)" | tee -a "$log"
  rm -rf "$dir"
done
