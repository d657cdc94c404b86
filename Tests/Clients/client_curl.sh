#!/usr/bin/env bash
# Drives the sink with curl: --data-urlencode with -G for the query (a space becomes +); canonical output by python3.
set -euo pipefail
url=$1 token=$2 body=$3 type=$4 from=$5 to=$6 tz=$7 priority=$8
auth=(-H "Authorization: Bearer $token")
posted=$(curl -fsS "${auth[@]}" -H 'Content-Type: application/json' --data-binary "@$body" "$url/samples")
pages=()
cursor=
while :; do
  args=(--data-urlencode "type=$type" --data-urlencode "limit=7")
  [ -n "$cursor" ] && args+=(--data-urlencode "cursor=$cursor")
  page=$(curl -fsS -G "${auth[@]}" "${args[@]}" "$url/samples")
  pages+=("$page")
  cursor=$(printf '%s' "$page" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("nextCursor") or "")')
  [ -z "$cursor" ] && break
done
daily=$(curl -fsS -G "${auth[@]}" --data-urlencode "from=$from" --data-urlencode "to=$to" \
  --data-urlencode "tz=$tz" --data-urlencode "priority=$priority" "$url/steps/daily")
python3 - "$posted" "$daily" "${pages[@]}" <<'PY'
import json, sys
posted, daily, pages = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3:]
uuids = sorted(s["uuid"] for page in pages for s in json.loads(page)["samples"])
print(json.dumps({"accepted": posted["inserted"] + posted["duplicates"], "uuids": uuids, "daily": daily}, sort_keys=True))
PY
