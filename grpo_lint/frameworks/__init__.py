"""Framework front ends: each knows its framework's arguments by version and builds a RunPlan."""
