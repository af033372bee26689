#!/usr/bin/env bash
# npm start: set up, build the engine and the page, and serve it on http://127.0.0.1:8080/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh engine web
echo "Serving the page at http://127.0.0.1:${PORT:-8080}/ (Ctrl+C stops)"
exec npx vite preview web --port "${PORT:-8080}" --strictPort
