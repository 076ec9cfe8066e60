"""DuckDB schema and migrations.

``MIGRATIONS[i]`` upgrades the schema from version ``i`` to ``i + 1``; the applied version is
kept in ``schema_version``. Append new migrations; never edit an applied one.

JSON-valued columns hold lists/objects serialised by the repository (ids, themes, payloads).
"""

from __future__ import annotations

V1 = """
CREATE TABLE conversations (
    id VARCHAR PRIMARY KEY,
    speakers VARCHAR NOT NULL,          -- JSON list
    source_format VARCHAR NOT NULL,
    source_name VARCHAR NOT NULL,
    meta VARCHAR NOT NULL,              -- JSON object (observations, summaries, ...)
    imported_at TIMESTAMP NOT NULL
);
CREATE TABLE sessions (
    conv_id VARCHAR NOT NULL,
    idx INTEGER NOT NULL,
    time TIMESTAMP,
    time_text VARCHAR NOT NULL,
    PRIMARY KEY (conv_id, idx)
);
CREATE TABLE turns (
    conv_id VARCHAR NOT NULL,
    id VARCHAR NOT NULL,
    session INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    position INTEGER NOT NULL,          -- 0-based order in the whole conversation
    speaker VARCHAR NOT NULL,
    text VARCHAR NOT NULL,
    image_caption VARCHAR,
    image_url VARCHAR,
    session_time TIMESTAMP,
    PRIMARY KEY (conv_id, id)
);
CREATE TABLE qa (
    conv_id VARCHAR NOT NULL,
    qid INTEGER NOT NULL,
    question VARCHAR NOT NULL,
    answer VARCHAR,
    evidence VARCHAR NOT NULL,          -- JSON list of turn ids
    category INTEGER,
    adversarial_answer VARCHAR,
    question_time TIMESTAMP,
    PRIMARY KEY (conv_id, qid)
);
CREATE TABLE episodes (
    conv_id VARCHAR NOT NULL,
    id VARCHAR PRIMARY KEY,
    session INTEGER NOT NULL,
    position INTEGER NOT NULL,          -- order in the conversation
    turn_ids VARCHAR NOT NULL,          -- JSON list
    theme VARCHAR NOT NULL,             -- JSON list of key phrases
    theme_type VARCHAR NOT NULL,
    boundary_reason VARCHAR NOT NULL,
    boundary_score DOUBLE NOT NULL,
    start_time TIMESTAMP
);
CREATE TABLE records (
    id VARCHAR PRIMARY KEY,
    conv_id VARCHAR NOT NULL,
    episode_id VARCHAR NOT NULL,
    entity VARCHAR NOT NULL,
    entity_type VARCHAR NOT NULL,
    property VARCHAR NOT NULL,
    value VARCHAR NOT NULL,
    condition VARCHAR,
    modality VARCHAR NOT NULL,
    valid_time VARCHAR,
    valid_time_text VARCHAR,
    evidence_turn_ids VARCHAR NOT NULL, -- JSON list
    confidence DOUBLE NOT NULL,
    source_speaker VARCHAR,
    importance DOUBLE NOT NULL,
    status VARCHAR NOT NULL,
    version INTEGER NOT NULL,
    origin VARCHAR NOT NULL
);
CREATE INDEX records_conv ON records (conv_id);
CREATE TABLE entities (
    id VARCHAR PRIMARY KEY,
    conv_id VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    type VARCHAR NOT NULL,
    aliases VARCHAR NOT NULL,           -- JSON list
    importance DOUBLE NOT NULL,
    attributes VARCHAR NOT NULL         -- JSON object property -> [values]
);
CREATE TABLE entity_merges (
    conv_id VARCHAR NOT NULL,
    canonical_id VARCHAR NOT NULL,
    alias VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    score DOUBLE NOT NULL
);
CREATE TABLE edges (
    conv_id VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    property VARCHAR NOT NULL,
    record_ids VARCHAR NOT NULL,        -- JSON list
    importance DOUBLE NOT NULL,
    first_mentioned TIMESTAMP,
    last_mentioned TIMESTAMP,
    last_accessed TIMESTAMP
);
CREATE TABLE events (
    id VARCHAR PRIMARY KEY,
    conv_id VARCHAR NOT NULL,
    episode_id VARCHAR NOT NULL,
    action VARCHAR NOT NULL,
    participants VARCHAR NOT NULL,      -- JSON list
    time VARCHAR,
    time_text VARCHAR,
    place VARCHAR,
    cause VARCHAR,
    manner VARCHAR,
    source_turn_ids VARCHAR NOT NULL,   -- JSON list
    importance DOUBLE NOT NULL
);
CREATE TABLE event_links (
    conv_id VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    label VARCHAR NOT NULL
);
CREATE TABLE built_sessions (          -- a row means: this session's memory is complete
    conv_id VARCHAR NOT NULL,
    session INTEGER NOT NULL,
    backend VARCHAR NOT NULL,
    built_at TIMESTAMP NOT NULL,
    stats VARCHAR NOT NULL,             -- JSON: timings, counts
    PRIMARY KEY (conv_id, session)
);
CREATE TABLE builds (
    id VARCHAR PRIMARY KEY,
    conv_id VARCHAR NOT NULL,
    backend VARCHAR NOT NULL,
    started_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    stats VARCHAR NOT NULL,             -- JSON: timings per stage, counts
    cost VARCHAR NOT NULL               -- JSON: tokens in/out, usd, calls
);
CREATE TABLE traces (
    id VARCHAR PRIMARY KEY,
    conv_id VARCHAR NOT NULL,
    question VARCHAR NOT NULL,
    strategy VARCHAR NOT NULL,
    backend VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    payload VARCHAR NOT NULL            -- the Trace as JSON
);
CREATE TABLE edits (
    id VARCHAR PRIMARY KEY,
    conv_id VARCHAR NOT NULL,
    target_kind VARCHAR NOT NULL,
    target_id VARCHAR NOT NULL,
    action VARCHAR NOT NULL,
    who VARCHAR NOT NULL,
    edited_at TIMESTAMP NOT NULL,
    before VARCHAR,                     -- JSON
    after VARCHAR,                      -- JSON
    why VARCHAR NOT NULL,
    reverts VARCHAR
);
CREATE TABLE llm_cache (
    key VARCHAR PRIMARY KEY,            -- sha256 of (endpoint, model, messages, parameters)
    endpoint VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    response VARCHAR NOT NULL,          -- raw response content
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE TABLE llm_calls (               -- accounting, one row per call (cached or not)
    conv_id VARCHAR,
    scope VARCHAR NOT NULL,             -- "build:<id>" | "trace:<id>" | "eval:<id>"
    stage VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    latency_s DOUBLE NOT NULL,
    cost_usd DOUBLE NOT NULL,
    cached BOOLEAN NOT NULL,
    called_at TIMESTAMP NOT NULL
);
"""

# V2: cache rows remember the conversation whose text their request carried, so forgetting a
# conversation can remove them (NULL: made outside any conversation, or before V2)
V2 = """
ALTER TABLE llm_cache ADD COLUMN conv_id VARCHAR;
"""

# V3: the state of each conversation in a build run on Dask workers, written by whoever builds
# it (the committing client, or a worker in team mode) and polled by the app's Load page; one
# row per conversation (its latest run), removed with the conversation
V3 = """
CREATE TABLE build_status (
    conv_id VARCHAR PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    state VARCHAR NOT NULL,             -- queued | building | done | failed
    stage VARCHAR NOT NULL,             -- e.g. 'session 2 of 5', 'graph'
    error VARCHAR NOT NULL,             -- one line when failed, else ''
    worker VARCHAR NOT NULL,            -- who wrote the row last (a Dask worker address, 'client')
    updated_at TIMESTAMP NOT NULL
);
"""

# V4: who asked — '' for a person (app, CLI, evaluation), else the MCP client's name — and what
# the call was ('ask' | 'search'), so the Ask page can list agent calls beside people's questions
V4 = """
ALTER TABLE traces ADD COLUMN client VARCHAR NOT NULL DEFAULT '';
ALTER TABLE traces ADD COLUMN kind VARCHAR NOT NULL DEFAULT 'ask';
"""

# V5: access control (memory_core/services/access.py). Accounts with Argon2 password hashes
# and a lock-out counter; app login sessions and API tokens, both stored as SHA-256 hashes of
# random secrets (the secret itself is shown once and never stored); the append-only audit
# trail (who did what, when, through which front end). Forgetting a conversation blanks the
# detail of its audit rows, never the rows.
V5 = """
CREATE TABLE accounts (
    name VARCHAR PRIMARY KEY,
    role VARCHAR NOT NULL,              -- viewer | annotator | admin
    password_hash VARCHAR NOT NULL,     -- Argon2id (argon2-cffi), '' = no local password (OIDC only)
    disabled BOOLEAN NOT NULL,
    failed_logins INTEGER NOT NULL,     -- consecutive failures since the last success
    locked_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE TABLE login_sessions (
    id_hash VARCHAR PRIMARY KEY,        -- sha256 of the session secret
    account VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE TABLE api_tokens (
    id VARCHAR PRIMARY KEY,             -- short public id (listing, revoking)
    token_hash VARCHAR NOT NULL UNIQUE, -- sha256 of the token
    label VARCHAR NOT NULL,
    role VARCHAR NOT NULL,
    conv_id VARCHAR,                    -- NULL: every conversation
    created_by VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    revoked_at TIMESTAMP,
    last_used_at TIMESTAMP
);
CREATE TABLE audit (
    id VARCHAR PRIMARY KEY,
    logged_at TIMESTAMP NOT NULL,
    who VARCHAR NOT NULL,               -- account name, 'token:<id>', or the local OS user
    frontend VARCHAR NOT NULL,          -- app | cli | mcp | http | library
    action VARCHAR NOT NULL,            -- read | ask | export | import | build | forget | ...
    conv_id VARCHAR,
    detail VARCHAR NOT NULL
);
CREATE INDEX audit_logged_at ON audit (logged_at);
"""

# V6: where in the app an edit was made ("browse", "review queue", "edit form", ...); NULL for
# edits made before V6 or through the library without naming a place
V6 = """
ALTER TABLE edits ADD COLUMN via VARCHAR;
"""

MIGRATIONS: list[str] = [V1, V2, V3, V4, V5, V6]
SCHEMA_VERSION = len(MIGRATIONS)
