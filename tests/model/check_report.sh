#!/bin/sh
# Renders `sidecore report` output in headless Chromium and checks that it renders and makes no
# external request. Usage: check_report.sh SIDECORE_EXE DATA_DIR WORK_DIR
# Exit 77 (ctest SKIP_RETURN_CODE) when Chromium is not installed.
set -u
exe=$1 data=$2 work=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
html=$work/report.html
"$exe" report "$data/job_off.json" "$data/job_core.json" -o "$html" || \
  { echo "FAIL: sidecore report exited $?"; exit 1; }

# 1. Static check: no attribute or CSS reference that would fetch anything.
if grep -Eiq '(src|href|action|poster|srcset)[[:space:]]*=|url\(|@import|<script|<link|<iframe|<img' "$html"; then
  echo "FAIL: the report references external resources:"
  grep -Eion \
    '(src|href|action|poster|srcset)[[:space:]]*=[^ >]*|url\([^)]*\)|@import[^;]*|<(script|link|iframe|img)[^>]*' \
    "$html"
  exit 1
fi

# 2. Render it. Every network path is closed (no DNS, a proxy on a port nothing listens on), and the
#    NetLog records every request Chromium attempts.
browse() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --no-default-browser-check --disable-background-networking --disable-component-update --disable-sync \
    --disable-extensions "--host-resolver-rules=MAP * ~NOTFOUND" --proxy-server=127.0.0.1:9 \
    "--user-data-dir=$work/profile" "$@"
}
browse "--log-net-log=$work/netlog.json" --dump-dom "file://$html" > "$work/dom.html" 2> "$work/chromium.log"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$work/dom.html" ]; then
  echo "FAIL: chromium --dump-dom exited $rc"; tail -20 "$work/chromium.log"; exit 1
fi
for needle in 'id="verdict"' '<svg' 'Term by term' 'By message size' 'Progress thread'; do
  grep -q "$needle" "$work/dom.html" || { echo "FAIL: rendered DOM lacks $needle"; exit 1; }
done
# Requests the page starts carry its origin as initiator; the browser's own service traffic (update
# checks, ...) says "not an origin" and is not the page's doing.
page_requests() {
  grep '"initiator":' "$1" | grep -v '"initiator":"not an origin"' | \
    grep -Eo '"url":"[a-z]+://[^"]*"' | grep -v '"url":"file://'
}
if page_requests "$work/netlog.json" | grep -q .; then
  echo "FAIL: the page made network requests:"
  page_requests "$work/netlog.json" | sort -u
  exit 1
fi
# Control: the same check must see a page that does fetch something.
printf '<!DOCTYPE html><html><body><img src="http://sidecore-control.invalid/x.png" alt="x"></body></html>\n' \
  > "$work/control.html"
browse "--log-net-log=$work/control-netlog.json" --dump-dom "file://$work/control.html" \
  > /dev/null 2>> "$work/chromium.log"
if ! page_requests "$work/control-netlog.json" | grep -q 'sidecore-control.invalid'; then
  echo "FAIL: the request check saw nothing in the control page; it cannot be trusted"
  exit 1
fi
browse --window-size=1000,3000 "--screenshot=$work/report.png" "file://$html" > /dev/null 2>> "$work/chromium.log"
size=$(wc -c < "$work/report.png" 2>/dev/null || echo 0)
if [ "$size" -lt 10000 ]; then
  echo "FAIL: screenshot missing or blank ($size bytes)"; exit 1
fi
echo "PASS: report rendered (DOM $(wc -c < "$work/dom.html") bytes, screenshot $size bytes), no external request"
