"""Pages only some rulesets have."""
