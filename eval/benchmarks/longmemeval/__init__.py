"""LongMemEval (ICLR 2025): long-term chat memory, one haystack of sessions per question."""
