"""End-to-end tests: bots against a local fake Discord (see fake_discord.py)."""
