"""The match host: store, outbox, command line and Discord client."""

import warnings

# discord.py imports audioop (deprecated since Python 3.11) for voice, which the bot never uses;
# here, before any module of the bot imports discord, so that ``run`` starts without the warning
warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning, r"discord\.player")


def version() -> str:
    """The installed floral-host's version (pyproject's), or "unknown" from a bare checkout."""
    import importlib.metadata  # here: ~30 ms of a command's start, for a line it rarely prints

    try:
        return importlib.metadata.version("floral-host")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
