# Sourced by scripts/test.sh when the host suite's files include the upstream tier (dist/test/upstream/):
# builds or reuses the upstream binaries (`npm run upstream -- build`, as test.sh's guest suite builds
# its guest), then starts the control plane the tier's files share (control-plane.sh) and exports its
# KPN_UPSTREAM_* variables; test.sh stops it (upstream_stop) once the host suite is done, or on exit. On a machine without Go the build exits 77: the
# tier's files are left out with one line saying so, and the rest of the suite runs.
# In: $files (the selected test files). Out: $files (without the tier when it cannot run),
# $upstream (0, or 1 when the build or the control plane failed: the suite then fails).
upstream=0
upstream_stop() { # idempotent: after the host suite, and again from the EXIT trap
  [ -n "${KPN_UPSTREAM_DIR:-}" ] && [ -d "$KPN_UPSTREAM_DIR" ] && bash scripts/upstream/control-plane.sh stop "$KPN_UPSTREAM_DIR"
  return 0
}
if echo "$files" | grep -q '^dist/test/upstream/'; then
  rc=0; out=$(npm run -s upstream -- build 2>&1) || rc=$?
  if [ "$rc" = 77 ]; then
    echo "test.sh: upstream tier not run: $(echo "$out" | grep '^upstream: SKIP:' | tail -n 1)"
    files=$(echo "$files" | grep -v '^dist/test/upstream/' || true)
  elif [ "$rc" != 0 ]; then
    echo "$out" | tail -n 45
    echo "test.sh: upstream tier not run: npm run upstream -- build failed (exit $rc)"
    files=$(echo "$files" | grep -v '^dist/test/upstream/' || true); upstream=1
  elif cp_env=$(bash scripts/upstream/control-plane.sh start); then
    eval "$cp_env"
    trap upstream_stop EXIT
  else
    echo "test.sh: upstream tier not run: its control plane did not start (above)"
    files=$(echo "$files" | grep -v '^dist/test/upstream/' || true); upstream=1
  fi
fi
