"""The router's utterance bank: one <intent>.txt per intent (package data)."""
