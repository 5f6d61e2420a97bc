"""Schema migrations, applied in order; ``schema_migrations`` records which ones ran.

Never edit a released migration: add the next one.
"""

from __future__ import annotations

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE matches (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            players TEXT NOT NULL,       -- JSON list of user ids in seat order
            names TEXT NOT NULL,         -- JSON list
            moderators TEXT NOT NULL,    -- JSON list of user ids
            config TEXT NOT NULL,        -- JSON, as parsed by the game
            seed INTEGER NOT NULL,
            window_s REAL,               -- overrides the requests' timeout when set
            status TEXT NOT NULL,
            step INTEGER NOT NULL DEFAULT 0,
            outcome TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX matches_status ON matches (status);
        CREATE INDEX matches_guild ON matches (guild_id);

        -- the move log, with the state snapshot after each step (step 0: the start)
        CREATE TABLE steps (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            step INTEGER NOT NULL,
            kind TEXT NOT NULL,          -- start, resolve, end
            moves TEXT,                  -- JSON {seat: move or null}
            snapshot TEXT NOT NULL,      -- JSON, the engine's dump()
            at REAL NOT NULL,
            PRIMARY KEY (match_id, step)
        ) WITHOUT ROWID;

        CREATE TABLE windows (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            step INTEGER NOT NULL,
            seats TEXT NOT NULL,         -- JSON list of the seats asked
            status TEXT NOT NULL,        -- open, closed
            deadline REAL NOT NULL,      -- epoch seconds, UTC
            remaining REAL,              -- seconds left while paused
            reminded INTEGER NOT NULL DEFAULT 0,
            opened_at REAL NOT NULL,
            closed_at REAL,
            close_reason TEXT,
            PRIMARY KEY (match_id, step)
        ) WITHOUT ROWID;
        CREATE INDEX windows_open ON windows (match_id) WHERE status = 'open';

        -- each seat's current valid move in a window
        CREATE TABLE moves (
            match_id INTEGER NOT NULL,
            step INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            move TEXT NOT NULL,          -- JSON
            PRIMARY KEY (match_id, step, seat)
        ) WITHOUT ROWID;

        -- every attempt judged in a window, in arrival order (exports need the raw text)
        CREATE TABLE attempts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            match_id INTEGER NOT NULL,
            step INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            raw TEXT NOT NULL,
            verdict TEXT NOT NULL,       -- accepted, refused, duplicate
            reason TEXT NOT NULL,
            move TEXT,                   -- JSON, for accepted attempts
            at REAL NOT NULL
        );
        CREATE INDEX attempts_match ON attempts (match_id, step);

        CREATE TABLE match_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            match_id INTEGER NOT NULL,
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            by_user INTEGER,
            data TEXT                    -- JSON
        );
        CREATE INDEX match_log_match ON match_log (match_id);

        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            match_id INTEGER NOT NULL,
            audience TEXT NOT NULL,      -- public, moderators, seat<N>
            text TEXT NOT NULL,
            payload TEXT NOT NULL,       -- JSON
            status TEXT NOT NULL DEFAULT 'pending',
            tries INTEGER NOT NULL DEFAULT 0,
            next_try REAL NOT NULL DEFAULT 0,
            error TEXT,
            created_at REAL NOT NULL,
            sent_at REAL
        );
        CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';
        CREATE INDEX outbox_match ON outbox (match_id);
        """,
    ),
    (
        2,
        """
        -- JSON {kind: seconds}: the match's length of each timer kind but "turn" (window_s);
        -- NULL in matches created before timer kinds, which read as {}
        ALTER TABLE matches ADD COLUMN timers TEXT;
        """,
    ),
    (
        3,
        """
        -- a practice match against the AI: never rated
        ALTER TABLE matches ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;
        -- when the match finished or was aborted (epoch seconds, for people), and the order
        -- of the ends (1, 2, ...: each end takes the next number in the transaction that ends
        -- the match, so it never depends on a clock); ratings fold matches in that order.
        -- Matches over before this migration take their last update, in that order.
        ALTER TABLE matches ADD COLUMN ended_at REAL;
        ALTER TABLE matches ADD COLUMN ended_seq INTEGER;
        UPDATE matches SET ended_at = updated_at WHERE status IN ('finished', 'aborted');
        UPDATE matches SET ended_seq = ordered.seq
            FROM (SELECT id, row_number() OVER (ORDER BY updated_at, id) AS seq FROM matches
                  WHERE status IN ('finished', 'aborted')) AS ordered
            WHERE matches.id = ordered.id;
        CREATE UNIQUE INDEX matches_ended ON matches (ended_seq);

        -- each player's rating per guild and game, folded from the finished matches' results
        -- (bot/ratings.py); always rebuildable from them
        CREATE TABLE ratings (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            name TEXT NOT NULL,          -- the name in the player's latest rated match
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            matches INTEGER NOT NULL,
            wins INTEGER NOT NULL,
            losses INTEGER NOT NULL,
            updated_at REAL NOT NULL,    -- the ended_at of the latest match folded in
            PRIMARY KEY (guild_id, game, user_id)
        ) WITHOUT ROWID;

        -- the finished matches folded into the ratings (rated or found unratable), once each
        CREATE TABLE rated_matches (
            match_id INTEGER PRIMARY KEY,
            ended_seq INTEGER NOT NULL UNIQUE,
            rated INTEGER NOT NULL       -- 0: folded in as nothing (no outcome, a repeated player)
        );
        """,
    ),
    (
        4,
        """
        -- open tables: players gather by pressing Join; a full table sets its match up
        CREATE TABLE tables (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            opener INTEGER NOT NULL,     -- the user who opened it
            seats INTEGER NOT NULL,
            players TEXT NOT NULL,       -- JSON [[user_id, name], ...] in the order they joined
            status TEXT NOT NULL,        -- open, full (its match is set up), closed
            match_id INTEGER,            -- the match a full table set up
            created_at REAL NOT NULL
        );
        """,
    ),
    (
        5,
        """
        -- with FLORAL_THREADS: the thread of the channel a match's posts go to
        CREATE TABLE match_threads (
            match_id INTEGER PRIMARY KEY,
            thread_id INTEGER NOT NULL
        );
        """,
    ),
    (
        6,
        """
        -- JSON {seat: step}: the step of each seat's prompt where older than the window (a
        -- window whose seats go at their own pace keeps a seat's prompt through the others'
        -- answers); NULL: every seat's prompt is the window's own
        ALTER TABLE windows ADD COLUMN prompted TEXT;
        """,
    ),
    (
        7,
        """
        -- storage that stays small: a step keeps its state snapshot only at a checkpoint (step 0,
        -- every 32nd step) and at its match's latest step; the states between are derived by
        -- replaying the move log from the checkpoint before them (bot/history.py)
        CREATE TABLE steps_sparse (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            step INTEGER NOT NULL,
            kind TEXT NOT NULL,          -- start, resolve, end, leave
            moves TEXT,                  -- JSON {seat: move or null}
            snapshot TEXT,               -- JSON, the engine's dump(); NULL between checkpoints
            at REAL NOT NULL,
            PRIMARY KEY (match_id, step)
        ) WITHOUT ROWID;
        INSERT INTO steps_sparse (match_id, step, kind, moves, snapshot, at)
            SELECT match_id, step, kind, moves,
                CASE WHEN step % 32 = 0 OR step = (SELECT MAX(last.step) FROM steps last
                    WHERE last.match_id = steps.match_id) THEN snapshot END,
                at
            FROM steps;
        DROP TABLE steps;
        ALTER TABLE steps_sparse RENAME TO steps;

        -- the settled (sent or failed) messages of a match, archived in chunks as they settle
        -- and taken out of the outbox: zlib of the JSON list of [id, audience, text, payload,
        -- status, tries, next_try, error, created_at, sent_at] (bot/store/archive.py)
        CREATE TABLE outbox_archive (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL,
            messages BLOB NOT NULL
        );
        CREATE INDEX outbox_archive_match ON outbox_archive (match_id);

        -- when floral-host prune --keep-results dropped the match's log and messages, keeping
        -- the row (its outcome and the ratings' inputs)
        ALTER TABLE matches ADD COLUMN pruned_at REAL;

        -- each floral-host forget: the user it forgot is stored nowhere; their seats, moves and
        -- tables carry the id -(this id) instead of theirs
        CREATE TABLE forgotten (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at REAL NOT NULL
        );
        """,
    ),
)

LATEST_VERSION = MIGRATIONS[-1][0]

# The same migrations written for PostgreSQL: the same version numbers, tables, columns, indexes
# and data changes. SQLite's INTEGER is 64 bits (BIGINT here: Discord's ids need it), its REAL a
# double, its BLOB a BYTEA; AUTOINCREMENT is an identity column (explicit ids may be inserted, as
# copy-db and forget do). Never edit a released one either.
POSTGRES_MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE matches (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            game TEXT NOT NULL,
            guild_id BIGINT NOT NULL,
            channel_id BIGINT NOT NULL,
            players TEXT NOT NULL,
            names TEXT NOT NULL,
            moderators TEXT NOT NULL,
            config TEXT NOT NULL,
            seed BIGINT NOT NULL,
            window_s DOUBLE PRECISION,
            status TEXT NOT NULL,
            step BIGINT NOT NULL DEFAULT 0,
            outcome TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX matches_status ON matches (status);
        CREATE INDEX matches_guild ON matches (guild_id);

        CREATE TABLE steps (
            match_id BIGINT NOT NULL REFERENCES matches (id),
            step BIGINT NOT NULL,
            kind TEXT NOT NULL,
            moves TEXT,
            snapshot TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (match_id, step)
        );

        CREATE TABLE windows (
            match_id BIGINT NOT NULL REFERENCES matches (id),
            step BIGINT NOT NULL,
            seats TEXT NOT NULL,
            status TEXT NOT NULL,
            deadline DOUBLE PRECISION NOT NULL,
            remaining DOUBLE PRECISION,
            reminded BIGINT NOT NULL DEFAULT 0,
            opened_at DOUBLE PRECISION NOT NULL,
            closed_at DOUBLE PRECISION,
            close_reason TEXT,
            PRIMARY KEY (match_id, step)
        );
        CREATE INDEX windows_open ON windows (match_id) WHERE status = 'open';

        CREATE TABLE moves (
            match_id BIGINT NOT NULL,
            step BIGINT NOT NULL,
            seat BIGINT NOT NULL,
            move TEXT NOT NULL,
            PRIMARY KEY (match_id, step, seat)
        );

        CREATE TABLE attempts (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            match_id BIGINT NOT NULL,
            step BIGINT NOT NULL,
            seat BIGINT NOT NULL,
            user_id BIGINT NOT NULL,
            raw TEXT NOT NULL,
            verdict TEXT NOT NULL,
            reason TEXT NOT NULL,
            move TEXT,
            at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX attempts_match ON attempts (match_id, step);

        CREATE TABLE match_log (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            match_id BIGINT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            kind TEXT NOT NULL,
            by_user BIGINT,
            data TEXT
        );
        CREATE INDEX match_log_match ON match_log (match_id);

        CREATE TABLE outbox (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            match_id BIGINT NOT NULL,
            audience TEXT NOT NULL,
            text TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            tries BIGINT NOT NULL DEFAULT 0,
            next_try DOUBLE PRECISION NOT NULL DEFAULT 0,
            error TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            sent_at DOUBLE PRECISION
        );
        CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';
        CREATE INDEX outbox_match ON outbox (match_id);
        """,
    ),
    (
        2,
        """
        ALTER TABLE matches ADD COLUMN timers TEXT;
        """,
    ),
    (
        3,
        """
        ALTER TABLE matches ADD COLUMN practice BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE matches ADD COLUMN ended_at DOUBLE PRECISION;
        ALTER TABLE matches ADD COLUMN ended_seq BIGINT;
        UPDATE matches SET ended_at = updated_at WHERE status IN ('finished', 'aborted');
        UPDATE matches SET ended_seq = ordered.seq
            FROM (SELECT id, row_number() OVER (ORDER BY updated_at, id) AS seq FROM matches
                  WHERE status IN ('finished', 'aborted')) AS ordered
            WHERE matches.id = ordered.id;
        CREATE UNIQUE INDEX matches_ended ON matches (ended_seq);

        CREATE TABLE ratings (
            guild_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            user_id BIGINT NOT NULL,
            name TEXT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            matches BIGINT NOT NULL,
            wins BIGINT NOT NULL,
            losses BIGINT NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (guild_id, game, user_id)
        );

        CREATE TABLE rated_matches (
            match_id BIGINT PRIMARY KEY,
            ended_seq BIGINT NOT NULL UNIQUE,
            rated BIGINT NOT NULL
        );
        """,
    ),
    (
        4,
        """
        CREATE TABLE tables (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            guild_id BIGINT NOT NULL,
            channel_id BIGINT NOT NULL,
            game TEXT NOT NULL,
            opener BIGINT NOT NULL,
            seats BIGINT NOT NULL,
            players TEXT NOT NULL,
            status TEXT NOT NULL,
            match_id BIGINT,
            created_at DOUBLE PRECISION NOT NULL
        );
        """,
    ),
    (
        5,
        """
        CREATE TABLE match_threads (
            match_id BIGINT PRIMARY KEY,
            thread_id BIGINT NOT NULL
        );
        """,
    ),
    (
        6,
        """
        ALTER TABLE windows ADD COLUMN prompted TEXT;
        """,
    ),
    (
        7,
        """
        ALTER TABLE steps ALTER COLUMN snapshot DROP NOT NULL;
        UPDATE steps SET snapshot = NULL
            WHERE step % 32 <> 0 AND step <> (SELECT MAX(last.step) FROM steps last
                WHERE last.match_id = steps.match_id);

        CREATE TABLE outbox_archive (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            match_id BIGINT NOT NULL,
            messages BYTEA NOT NULL
        );
        CREATE INDEX outbox_archive_match ON outbox_archive (match_id);

        ALTER TABLE matches ADD COLUMN pruned_at DOUBLE PRECISION;

        CREATE TABLE forgotten (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            at DOUBLE PRECISION NOT NULL
        );
        """,
    ),
)
