# syntax=docker/dockerfile:1
#
# casino-stud: the table server with the browser client, as docker-compose.yml runs it.
#
#   docker build -t casino-stud:0.1.0 .
#   docker run --rm -p 8765:8765 casino-stud:0.1.0         # one process, in-memory store
#
# Base images are pinned to exact releases: bump them on purpose, then run the
# stack (docs/OPERATIONS.md). The server runs as an unprivileged user, logs
# JSON lines on stderr and answers its health check on /healthz.

# ---- the browser client's npm packages, production only ---------------------
FROM node:20.19.0-bookworm-slim AS web
WORKDIR /web
COPY clients/web/package.json clients/web/package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# ---- the server ------------------------------------------------------------
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

RUN useradd --system --no-log-init --uid 10001 --user-group \
        --home-dir /nonexistent --shell /usr/sbin/nologin stud \
    && python -m venv /opt/venv

WORKDIR /app

# Third-party dependencies from pyproject.toml alone, in their own layer: a
# change to the code reuses it; only a change to the dependencies rebuilds it.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# The project, installed in place so that clients/web stays next to the server
# package: the server serves /app/clients/web at / (server/http.py).
COPY README.md ./
COPY protocol/ protocol/
COPY server/ server/
COPY clients/ clients/
COPY deploy/healthcheck.py deploy/
COPY --from=web /web/node_modules clients/web/node_modules
RUN pip install --no-deps --editable .

USER 10001:10001

# Listen on every interface of the container; compose publishes the port.
ENV STUD_HOST=0.0.0.0 \
    STUD_PORT=8765
EXPOSE 8765

HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "/app/deploy/healthcheck.py"]

# SIGTERM (docker stop): no new rounds, running ones finish within
# shutdown_grace or are voided and refunded, clients are closed with 1001.
STOPSIGNAL SIGTERM
CMD ["stud-server", "serve", "--log-format", "json"]
