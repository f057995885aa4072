#!/bin/sh
# expect.sh STATUS REGEX COMMAND...: runs COMMAND and passes when it exits with STATUS within EXPECT_SECONDS (30)
# and a line of its output (stdout and stderr) matches the extended REGEX. A crash, a hang and a message other than
# the one expected all fail. The output is printed either way, for ctest's log.
status=$1 regex=$2
shift 2
out=$(timeout -k 5 "${EXPECT_SECONDS:-30}" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq "$status" ] || { echo "FAIL: exit status $rc, $status expected"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "FAIL: no line matches /$regex/"; exit 1; }
echo PASS
