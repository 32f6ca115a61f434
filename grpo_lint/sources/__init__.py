"""Source readers: turn a file into values that remember where they were written."""
