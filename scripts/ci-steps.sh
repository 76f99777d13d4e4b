# The CI run's steps and its budget, sourced by .ci/run: `step NAME COMMAND...` runs one step and keeps its
# wall time; at the end (trap finish EXIT) the table of steps is printed and the run fails past the budget.
# tests/test_ci_budget.py runs these functions with made-up steps, clocks and machine speeds.
#
# The budget: CI has 90 minutes, and a run past HARD_LIMIT_S of wall time fails whatever the machine (the
# 41-minute run of 2026-12-07 fits twice over: a machine twice as slow passes). Growth is watched in the
# reference machine's minutes: `speed_probe` (python -m bench.noise, the benchmark's CPU loop) measures how
# many times slower this machine is (SPEED_FACTOR, at least 1), the wall time is divided by it, and past
# WARN_AFTER_S of those the run warns that the code, not the machine, has grown past its budget.
WARN_AFTER_S=$((45 * 60))  # reference minutes: half of CI's 90, the rest kept for growth and slow machines
HARD_LIMIT_S=$((85 * 60))  # wall: CI stops at 90 minutes and lands nothing
SPEED_FACTOR=${SPEED_FACTOR:-1.00}
SPEED_LINE="not probed"
STARTED=$(date +%s)
STEPS=()

# step NAME COMMAND...: run one step, keep its wall time for the table at the end.
step() {
  local name=$1; shift
  local began=$(date +%s) status=0
  echo "ci: step '$name' started at $(date -u +%H:%M:%S)"
  "$@" || status=$?
  STEPS+=("$name|$(( $(date +%s) - began ))|$status")
  return $status
}

# speed_probe PYTHON: measure this machine's speed (the slowest of several readings is noise, the fastest is
# the machine: the factor only ever moves down to it).
speed_probe() {
  local line factor
  line=$("$1" -m bench.noise) || { echo "ci: the speed probe failed; the budget stays in wall minutes" >&2; return 0; }
  factor=${line##*factor=}
  if [ "$SPEED_LINE" = "not probed" ] || awk "BEGIN{exit !($factor < $SPEED_FACTOR)}"; then
    SPEED_FACTOR=$factor; SPEED_LINE=$line
  fi
  echo "ci: machine speed: $line (budget in reference minutes: wall / $SPEED_FACTOR)"
}

table() {
  local total=$(( $(date +%s) - STARTED ))
  local reference=$(awk "BEGIN{printf \"%d\", $total / $SPEED_FACTOR}")
  echo
  echo "ci: machine speed: $SPEED_LINE"
  echo "ci: wall time per step (budget: fail past $((HARD_LIMIT_S / 60)) min of wall time; warn past" \
       "$((WARN_AFTER_S / 60)) min in reference minutes, wall / $SPEED_FACTOR)"
  printf '| %-44s | %9s | %s |\n' "step" "wall" "exit"
  printf '|%s|%s|%s|\n' "----------------------------------------------" "-----------" "------"
  local row name seconds status
  for row in "${STEPS[@]}"; do
    IFS='|' read -r name seconds status <<<"$row"
    printf '| %-44s | %2dm %02ds   | %s |\n' "$name" $((seconds / 60)) $((seconds % 60)) "$status"
  done
  printf '| %-44s | %2dm %02ds   |      |\n' "total" $((total / 60)) $((total % 60))
  printf '| %-44s | %2dm %02ds   |      |\n' "total in reference minutes" $((reference / 60)) $((reference % 60))
  if ((total > HARD_LIMIT_S)); then
    echo "ci: FAILED the budget: $((total / 60)) min of wall time is past $((HARD_LIMIT_S / 60)) min (CI stops at 90)"
    return 1
  elif ((reference > WARN_AFTER_S)); then
    echo "ci: WARNING: $((reference / 60)) reference min is past the $((WARN_AFTER_S / 60))-minute budget (README \"CI\" says what each step may take)"
  fi
}

finish() {
  local status=$?
  table || status=1
  exit $status
}
trap finish EXIT
