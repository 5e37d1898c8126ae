#!/usr/bin/env bash
# Both type checks of `npm test`, side by side (2-core machine: 13 -> 9 s): the project
# (tsconfig.json), and app as the only code with the DOM (tsconfig.core.json,
# the architecture's DOM rule). The import arrows (.dependency-cruiser.cjs) are checked in
# the unit project (test/unit/architecture.test.ts); `npm run check:arch` runs both alone.
set -uo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p tsconfig.json &
project=$!
npx tsc --noEmit -p tsconfig.core.json &
core=$!
wait "$project"; a=$?
wait "$core"; b=$?
[ "$a" = 0 ] && [ "$b" = 0 ]
