import sys

from bot.process import imports_uncollected

with imports_uncollected():
    from bot.cli import main

sys.exit(main())
