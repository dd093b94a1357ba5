#!/usr/bin/env bash
# Instructions per perft node, counted by valgrind's callgrind: unlike seconds, the count
# is the same on a busy shared machine, so it is the number to compare janggi with xiangqi
# and one version of the move generator with another. Needs valgrind (apt-get install
# valgrind). Usage: bench/instructions.sh [DEPTH]   (default 3; depth 1 is the baseline)
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-3}"
python="$(readlink -f .venv/bin/python)"
count() {  # variant depth bulk -> instructions for the whole process
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$python" -c "
import sys; sys.path.insert(0, 'src'); import chuhan
board = chuhan.Board(variant='$1'); chuhan.perft(board, 1)
print(chuhan.perft(board, $2, bulk=$3))" 2>&1 | awk '/refs:/ {gsub(",", "", $4); print $4}'
}
printf '%-8s %-5s %12s %14s\n' variant mode nodes instr/node
for variant in xiangqi janggi; do
  for bulk in True False; do
    nodes="$("$python" -c "import sys; sys.path.insert(0, 'src'); import chuhan; print(chuhan.perft(chuhan.Board(variant='$variant'), $depth))")"
    base="$(count "$variant" 1 "$bulk")"
    total="$(count "$variant" "$depth" "$bulk")"
    mode=$([ "$bulk" = True ] && echo bulk || echo full)
    printf '%-8s %-5s %12s %14s\n' "$variant" "$mode" "$nodes" "$(( (total - base) / nodes ))"
  done
done
