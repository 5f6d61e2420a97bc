"""End-to-end tests: bots against a local fake Discord (see the fake_discord package)."""
