# The CI run's steps and its budget, sourced by .ci/run: `step NAME COMMAND...` runs one step and keeps its
# wall time; at the end (trap finish EXIT) the table of steps is printed and the run fails past the budget.
# tests/test_ci_budget.py runs these functions with made-up steps and clocks.
WARN_AFTER_S=$((45 * 60))  # the budget: CI takes 90 minutes at most, and this run keeps half for growth
FAIL_AFTER_S=$((60 * 60))  # past this on this 2-core machine the budget is broken: the run fails
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

table() {
  local total=$(( $(date +%s) - STARTED ))
  echo
  echo "ci: wall time per step (budget: warn past $((WARN_AFTER_S / 60)) min, fail past $((FAIL_AFTER_S / 60)) min)"
  printf '| %-44s | %9s | %s |\n' "step" "wall" "exit"
  printf '|%s|%s|%s|\n' "----------------------------------------------" "-----------" "------"
  local row name seconds status
  for row in "${STEPS[@]}"; do
    IFS='|' read -r name seconds status <<<"$row"
    printf '| %-44s | %2dm %02ds   | %s |\n' "$name" $((seconds / 60)) $((seconds % 60)) "$status"
  done
  printf '| %-44s | %2dm %02ds   |      |\n' "total" $((total / 60)) $((total % 60))
  if ((total > FAIL_AFTER_S)); then
    echo "ci: FAILED the budget: $((total / 60)) min is past $((FAIL_AFTER_S / 60)) min (README \"CI\" says what each step may take)"
    return 1
  elif ((total > WARN_AFTER_S)); then
    echo "ci: WARNING: $((total / 60)) min is past the $((WARN_AFTER_S / 60))-minute budget"
  fi
}

finish() {
  local status=$?
  table || status=1
  exit $status
}
trap finish EXIT
