"""Random players: one per engine, each building a legal move from a state and its allowed moves."""
