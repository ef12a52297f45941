#!/bin/sh
# Fill in deploy/nginx/datahub.conf's placeholders for the compose topology (two hosts,
# app-a and app-b, in nginx's upstream), then run nginx in the foreground.
#   render-nginx.sh <datahub.conf> <output> [--no-start]
set -eu
sed -e 's|^\( *\)server __UPSTREAM__\(.*\)$|\1server app-a:8000\2\n\1server app-b:8000\2|' \
    -e 's|__LISTEN__|443|' \
    -e 's|__SERVER_NAME__|localhost|' \
    -e 's|__TLS_CERT__|/certs/cert.pem|' \
    -e 's|__TLS_KEY__|/certs/key.pem|' \
    -e 's|__MAX_BODY__|104923136|' \
    -e 's|__SPA_ROOT__|/srv/spa|' \
    "$1" > "$2"
if [ "${3:-}" != "--no-start" ]; then
    exec nginx -g 'daemon off;'
fi
