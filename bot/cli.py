"""The ``floral-host`` command line (also ``python -m bot``)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bot import arguments, version
from bot.arguments import CommandParser
from bot.database import command_database, storage_failure
from bot.process import EXIT_OUTPUT_CLOSED, EXIT_SIGINT, imports_uncollected, silence_stdout
from bot.store.faults import UnusableDatabase

EXIT_CODES = """exit codes: 0 done; 1 failed (a storage fault, a match left unfinished);
2 bad usage; 130 or 143 stopped by Ctrl-C or SIGTERM (run stops with 0: a service asked to
stop is fine); 141 the output was closed (simulate | head)."""

JSON_HELP = "one JSON object a line (the default when the output is not a terminal)"

# subcommand -> module with ``main(args) -> int``
PLAYERS_HELP = "seats of the match (default: the game's smallest table)"
OPTIONS_HELP = (
    "the game's rules options, as its setup command takes them"
    ' (e.g. "magic_infused=6, deal_window=20"; see docs/GAME.md)'
)

_HANDLERS = {
    "run": "bot.client",
    "simulate": "bot.simulate",
    "play": "bot.play",
    "replay": "bot.replay",
    "export": "bot.export",
    "audit": "bot.audit",
    "backup": "bot.backup",
    "list": "bot.listing",
    "ratings": "bot.ratings_command",
    "prune": "bot.prune",
    "forget": "bot.forget",
    "copy-db": "bot.copydb",
}


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="floral-host",
        description="Host timed, secret-submission Genius-style death matches.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action=ShowVersion)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)

    run = sub.add_parser("run", help="connect to Discord and host matches (needs DISCORD_TOKEN)")
    run.add_argument(
        "--shards",
        default=None,
        metavar="RANGE",
        help="connect these Discord shards (0-3) and host their servers' matches; PostgreSQL"
        " only, with --shard-count (default FLORAL_SHARDS, such as 0-3/8)",
    )
    run.add_argument(
        "--shard-count",
        type=arguments.shard_count,
        default=None,
        metavar="N",
        help="the bot's shards in all (1 to 1024)",
    )
    run.add_argument(
        "--standby",
        action="store_true",
        help="wait, then take over the shards (of the range, else all) of a process that died",
    )

    simulate = sub.add_parser(
        "simulate", help="play whole matches between AI players", ai_levels=True
    )
    simulate.add_argument("game", metavar="GAME", help="a game listed below")
    simulate.add_argument(
        "--matches", type=arguments.match_count, default=1, help="new matches (default 1)"
    )
    simulate.add_argument(
        "--seed", type=arguments.seed, default=None, help="the same seed, the same transcript"
    )
    simulate.add_argument(
        "--window", type=arguments.seconds, default=None, help="window length (default 60 s)"
    )
    simulate.add_argument("--level", default=None, help="AI level of every seat (listed below)")
    simulate.add_argument("--players", type=arguments.player_count, default=None, help=PLAYERS_HELP)
    simulate.add_argument("--options", default=None, help=OPTIONS_HELP)
    simulate.add_argument("--db", default=None, help="database file (resumes unfinished matches)")
    simulate.add_argument("--quiet", action="store_true", help="print only the summary")
    simulate.add_argument(
        "--json", action="store_true", help="the summary as JSON on a terminal too"
    )

    play = sub.add_parser("play", help="you against the AI in the terminal", ai_levels=True)
    play.add_argument("game", metavar="GAME", help="a game listed below")
    play.add_argument("--level", default=None, help="AI level (listed below)")
    play.add_argument("--seed", type=arguments.seed, default=None)
    play.add_argument("--window", type=arguments.seconds, default=None, help="window length")
    play.add_argument(
        "--players", type=arguments.player_count, default=None, help=PLAYERS_HELP + "; you are P1"
    )
    play.add_argument("--options", default=None, help=OPTIONS_HELP)

    replay = sub.add_parser("replay", help="run a match script, print its trace")
    replay.add_argument("script", metavar="SCRIPT.json")
    replay.add_argument(
        "--summary", action="store_true", help="print what happened step by step, as text"
    )

    export = sub.add_parser("export", help="write a stored match as a script")
    export.add_argument("match", metavar="MATCH", type=arguments.match_id, help="m12 or 12")
    export.add_argument("--db", default=None)

    audit = sub.add_parser("audit", help="replay stored matches and compare with snapshots")
    audit.add_argument("--db", default=None)
    audit.add_argument("--json", action="store_true", help=JSON_HELP)

    backup = sub.add_parser("backup", help="a consistent copy of the database, safe while running")
    backup.add_argument("dest", metavar="DEST", help="the new backup file")
    backup.add_argument("--db", default=None, help="database file (default FLORAL_DB)")
    backup.add_argument("--force", action="store_true", help="replace DEST if it exists")

    listing = sub.add_parser("list", help="the stored matches with their status")
    listing.add_argument("--db", default=None, help="database file (default FLORAL_DB)")
    listing.add_argument("--json", action="store_true", help=JSON_HELP)

    prune = sub.add_parser(
        "prune", help="drop the matches that ended before a date, then compact (bot stopped)"
    )
    prune.add_argument(
        "--finished-before",
        required=True,
        type=arguments.moment,
        metavar="DATE",
        help="matches that finished or were aborted before it (2025-01-31: its midnight, UTC)",
    )
    prune.add_argument(
        "--keep-results",
        action="store_true",
        help="keep each match's row and outcome (stats and ratings stay true): drop its log",
    )
    prune.add_argument("--dry-run", action="store_true", help="only say how many would go")
    prune.add_argument("--db", default=None, help="database file (default FLORAL_DB)")

    forget = sub.add_parser(
        "forget", help="remove a user's names, messages and ratings (bot stopped)"
    )
    forget.add_argument("user", metavar="USER_ID", type=arguments.discord_id, help="digits")
    forget.add_argument("--db", default=None, help="database file (default FLORAL_DB)")

    copy = sub.add_parser(
        "copy-db",
        help="copy the whole database into a new one (SQLite <-> PostgreSQL), then audit it",
    )
    copy.add_argument(
        "--from", dest="source", default=None, metavar="DB", help="the database (default FLORAL_DB)"
    )
    copy.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="DB",
        help="a new SQLite file, or an empty PostgreSQL database (postgresql://...)",
    )

    rated = sub.add_parser("ratings", help="the players' ratings per server and game")
    rated.add_argument("--json", action="store_true", help=JSON_HELP)
    rated.add_argument(
        "--rebuild", action="store_true", help="clear the stored ratings and fold every match again"
    )
    rated.add_argument("--guild", type=_guild_id, default=None, help="only this server (its id)")
    rated.add_argument("--game", default=None, help="only this game")
    rated.add_argument("--db", default=None, help="database file (default FLORAL_DB)")
    return parser


class ShowVersion(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str) -> None:
        super().__init__(
            option_strings, argparse.SUPPRESS, nargs=0, help="show the version and exit"
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"floral-host {version()}")
        parser.exit()


def _guild_id(text: str) -> int:
    """A Discord server id: its digits."""
    return arguments.discord_id(text, "a server id")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare ``floral-host``: what it can do
        parser.print_help()
        return 0
    with imports_uncollected():
        handler = importlib.import_module(_HANDLERS[args.command])
    try:
        code: int = handler.main(args)
    except KeyboardInterrupt:  # Ctrl-C before the command set up its own handling
        return EXIT_SIGINT
    except BrokenPipeError:  # the reader of our output went away (``export 1 | head``)
        silence_stdout()
        return EXIT_OUTPUT_CLOSED
    except UnusableDatabase as error:
        return _storage_failure(args.command, str(error))
    except Exception as error:  # met after opening: corruption found mid-read, disk full
        explained = storage_failure(_db_named(args), error)
        if explained is None:
            raise
        return _storage_failure(args.command, str(explained))
    return code


def _storage_failure(command: str, message: str) -> int:
    """One line on stderr and exit 1: a supervisor or a script sees it failed."""
    print(f"floral-host {command}: {message}", file=sys.stderr)
    return 1


def _db_named(args: argparse.Namespace) -> str:
    db: str | None = getattr(args, "db", None)
    if db or args.command == "simulate":  # simulate's default is a scratch file
        return db or "the scratch database"
    return command_database(None)


if __name__ == "__main__":
    sys.exit(main())
