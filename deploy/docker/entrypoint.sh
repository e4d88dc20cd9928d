#!/bin/sh
# Container entrypoint: `<image> <service>` runs services/<service>/src/main.ts through tsx;
# anything else runs as given. `exec` makes node PID 1, so SIGTERM reaches it and it drains.
set -eu
app="${ESIGN_APP_DIR:-/app}"
if [ "$#" -ge 1 ] && [ -f "$app/services/$1/src/main.ts" ]; then
  service="$1"
  shift
  exec node --import tsx --import "$app/services/$service/src/instrument.ts" "$app/services/$service/src/main.ts" "$@"
fi
exec "$@"
