"""The match host: store, outbox, command line and Discord client."""

import warnings

# discord.py imports audioop (deprecated since Python 3.11) for voice, which the bot never uses;
# here, before any module of the bot imports discord, so that ``run`` starts without the warning
warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning, r"discord\.player")
