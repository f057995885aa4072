#!/bin/sh
# Runs the GOAL example of docs/simulate.md (the first code block after "## The GOAL language") as written.
# Usage: run_doc_goal_example.sh <sidecore> <docs/simulate.md> <work file>
set -u
awk '/^## The GOAL language/ { f = 1 } f && /^```$/ { n++; if (n == 2) exit; next } f && n == 1' "$2" > "$3"
"$1" simulate "$3" 2>&1
echo "exit=$?"
