"""Parsers for smartctl's answers, JSON and text, into one typed report."""
