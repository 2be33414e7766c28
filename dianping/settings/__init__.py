"""Settings modules: base (everything env-driven), dev, test, production."""
